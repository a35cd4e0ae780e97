// The query parameters that say how an import reads a platform's document, as /openapi.json
// publishes them: one place, so that the components and the README's list say the same.

// A document option: said of every raw document body and of csvContent, refused with any other.
const reading = (name: string, schema: object, description: string) => ({
  name,
  in: "query",
  required: false,
  schema,
  description: `${description} Applies to a CSV, TSV or XML body and to csvContent; with a JSON product list or NDJSON it is refused naming it.`,
});

/** The components of the reading parameters, by name. */
export const READING_PARAMETERS = {
  profile: reading(
    "profile",
    { type: "string", enum: ["native", "shopify", "woocommerce", "google", "meta"], default: "native" },
    "How the document is read: `native`, the catalog's own columns, or a platform's file: `shopify` (its product CSV), `woocommerce` (its product exporter's CSV), `google` (a Merchant Center feed: TSV, CSV or XML), `meta` (a Meta catalog feed). The answer then names the profile and the columns it did not keep (`ignoredColumns`). A native CSV whose header is a platform's is refused naming the profile to use.",
  ),
  shopUrl: reading(
    "shopUrl",
    { type: "string", format: "uri" },
    "The shop's address (`https://shop.example`), from which shopify and woocommerce make each product's url; they need it.",
  ),
  currency: reading(
    "currency",
    { type: "string", pattern: "^[A-Za-z]{3}$" },
    "The ISO 4217 code of the feed's prices (`USD`); google and meta need it, and a price in another currency is a problem at its row and column.",
  ),
  decimal: reading(
    "decimal",
    { type: "string", enum: [".", ","], default: "." },
    "The decimal separator of a platform file's prices.",
  ),
  variants: reading(
    "variants",
    { type: "string", enum: ["groups", "items"], default: "groups" },
    "`groups`: one product per product of the platform, its variants' prices spanned by price_min and price_max; `items`: one product per variant.",
  ),
  delimiter: reading(
    "delimiter",
    { type: "string", enum: [",", ";", "\t", "|"], default: "," },
    "The delimiter of a CSV (a tab is sent `%09`); a TSV is always tab-separated.",
  ),
  unknownColumns: reading(
    "unknownColumns",
    { type: "string", enum: ["refuse", "ignore"], default: "refuse" },
    "`refuse`: a column nobody knows is a problem at its column; `ignore`: it is read past and listed in `ignoredColumns`.",
  ),
} as const;
