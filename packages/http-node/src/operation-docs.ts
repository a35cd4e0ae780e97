// The longer descriptions of the route table's operations, apart from the table so that it stays
// a table: what an import takes and where its site comes from, a lookup's rule, list and export.

import type { StreamFormat } from "@catalog-kit/catalog-core";
import { KEY_RULES } from "./openapi-components.ts";
import type { PublishedLimits, RawBody } from "./operation.ts";

const LOCATED: Readonly<Record<StreamFormat, string>> = {
  ndjson: "NDJSON by `line` and a `pointer` into that line's product",
  csv: "CSV by row and column",
  tsv: "TSV by row and column",
  xml: "XML by `item` and `element`",
};
const PROFILES =
  " A CSV, TSV or XML body, and csvContent, may be a platform's file: the `profile` query parameter names it (`shopify`, `woocommerce`, `google`, `meta`), with the parameters it needs (`shopUrl`, `currency`), all checked before a byte of the body is read; the answer names the profile and the columns not kept (`ignoredColumns`).";

/** The description of an import: `what` it takes, and the raw body it may take instead (whose site the query names). */
export const importing =
  (what: string | ((limits: PublishedLimits) => string), raw?: RawBody) =>
  (limits: PublishedLimits): string => {
    const types = Object.keys(raw?.types ?? {});
    const formats = [...new Set(Object.values(raw?.types ?? {}))];
    const located = formats.map((format) => LOCATED[format]).join(", ");
    const site =
      "the site the siteId and siteType query parameters name (or, deprecated, the JSON body's fields), else the token's default site";
    return (
      `Imports ${typeof what === "string" ? what : what(limits)} into ${site}. A product whose id exists is replaced; with \`mode=merge\`, each record changes only the fields it carries of the product it names by id, else by sku (see \`mode\` and \`missing\`), and the answer counts the records skipped. Every product is checked before anything is written: one invalid product, or one sku held by another id, and nothing is. ${KEY_RULES}` +
      (raw === undefined
        ? ""
        : ` The body may instead be ${raw.what} (${types.join(" or ")}), streamed: decoded, checked and staged while it arrives, up to ${limits.maxStreamBytes} bytes and ${limits.maxProductsPerStream} products, with the same promises (nothing is visible until the whole body has arrived and every product is valid; problems are located: ${located}).${PROFILES}`)
    );
  };

/** The rule of a lookup by `key`. */
export const find = (key: string): string =>
  `The product whose id is ${key}, else the one whose sku is (unless \`by\` says which), in the site the siteId and siteType query parameters name, else the token's default site.`;

/** The description of the list. */
export const LIST =
  "A page of the products of the site the siteId and siteType query parameters name (else the token's default site), in id order (by code point), in the retrieval shape. Walking the cursors returns every product that exists for the whole walk exactly once, whatever is written meanwhile; products written during the walk may or may not appear. The whole site as a file is `exportProducts`; this path also answers it, for `Accept: text/csv` or `Accept: application/x-ndjson`, as it did before that operation had a path of its own.";

/** The description of the export. */
export const EXPORTS =
  "Every product of the site the siteId and siteType query parameters name (else the token's default site) as full Product Objects in the import formats, as `Accept` chooses: CSV with the spec's header (the default, when Accept names neither), or NDJSON, one product a line. Streamed: importing it back gives the same products (an empty description excepted in CSV, which cannot tell it from none). With `profile=google` or `profile=meta`, the site as a Google Merchant Center or Meta product feed instead (`text/tab-separated-values`, whatever Accept names), its prices in `currency`, else the site's configured currency (without either, 400 naming `currency`); posting it back with the same profile and currency imports the same products.";

/** The description of a patch. */
export const PATCHING =
  "Changes the fields the body carries, a JSON Merge Patch (RFC 7396): each field given replaces the stored one, `null` removes an optional field, the others stay as they are. The result must be a valid product, its sku free in the site (`SKU_CONFLICT` otherwise); an unknown field, `null` for a required one, or an `id` other than the product's own is a 400 located by JSON pointers into the body. Applied atomically against concurrent writes; with `If-Match`, only while the stored product is a copy named (412 otherwise). Answers every field of the product as stored after it, and its `ETag`.";
