// The query parameters of the routes: a name, which the route table's allowlists hold, and what
// /openapi.json says of it (inline, or a reference to the document's components).
import { CURSOR_PATTERN, LIST_LIMIT } from "@catalog-kit/catalog-core";

/** A query parameter an operation takes. */
export interface QueryParam {
  readonly name: string;
  /** Its OpenAPI parameter object, or a `$ref` to one among the document's components. */
  readonly doc: object;
}

const component = (name: string): QueryParam => ({ name, doc: { $ref: `#/components/parameters/${name}` } });

// The examples name the site `npm start` creates in demo mode, so that they run as written. Every
// route names its site the same way (`requestSite`): both parameters, or neither.
function siteParam(name: "siteId" | "siteType", what: string, body = ""): QueryParam {
  const description = `${name} of the site ${what}: give siteId and siteType both, or neither for the token's default site.${body}`;
  return {
    name,
    doc: { name, in: "query", required: false, schema: { type: "string", minLength: 1 }, description, example: "demo" },
  };
}

const BODY_FIELDS =
  " A JSON body may name its site in its own (deprecated) fields instead; where both name one, they must agree.";

/** The site of a lookup or a list: both, or neither for the token's default site. */
export const SITE_ID = siteParam("siteId", "to search in");
/** See `SITE_ID`. */
export const SITE_TYPE = siteParam("siteType", "to search in");
/** The site of an import, of any body: both, or neither for the token's default site. */
export const IMPORT_SITE_ID = siteParam("siteId", "to import into, whatever the body's media type", BODY_FIELDS);
/** See `IMPORT_SITE_ID`. */
export const IMPORT_SITE_TYPE = siteParam("siteType", "to import into, whatever the body's media type", BODY_FIELDS);
/** Which field a lookup matches. */
export const BY = component("by");
/** An import that checks and counts, and writes nothing. */
export const DRY_RUN = component("dryRun");
/** `upsert`, `replace` (a full sync) or `merge` (the fields given). */
export const MODE = component("mode");
/** What a merge does with a record that names no product. */
export const MISSING = component("missing");
/** Lets a replace empty the site. */
export const ALLOW_EMPTY = component("allowEmpty");
/** What a lookup answers of the product: its retrieval shape, or every field. */
export const VIEW: QueryParam = {
  name: "view",
  doc: {
    name: "view",
    in: "query",
    required: false,
    schema: { type: "string", enum: ["basic", "full"], default: "basic" },
    description:
      "`basic`: the retrieval shape (`id`, `sku`, `title`, `featured_image`, `url`); `full`: every field of the stored product, as PATCH answers it. The `ETag` is the same in both.",
  },
};
/** Products per page of a list. */
export const LIMIT: QueryParam = {
  name: "limit",
  doc: {
    name: "limit",
    in: "query",
    required: false,
    schema: { type: "integer", minimum: 1, maximum: LIST_LIMIT.max, default: LIST_LIMIT.default },
    description: "Products per page",
  },
};
/** Where a list's page starts. */
export const CURSOR: QueryParam = {
  name: "cursor",
  doc: {
    name: "cursor",
    in: "query",
    required: false,
    schema: { type: "string", pattern: CURSOR_PATTERN.source },
    description:
      "The `nextCursor` of the page before. Any other string of the pattern starts the page at some place in id order.",
  },
};

/** The profile a document import is read with. */
export const PROFILE = component("profile");
/** The shop's address, from which a platform profile makes each product's url. */
export const SHOP_URL = component("shopUrl");
/** The ISO 4217 code of a feed's prices. */
export const CURRENCY = component("currency");
/** The decimal separator of a platform file's prices. */
export const DECIMAL = component("decimal");
/** One product per group of variant rows, or per variant. */
export const VARIANTS = component("variants");
/** The delimiter of a native CSV. */
export const DELIMITER = component("delimiter");
/** Whether a column nobody knows is refused or listed. */
export const UNKNOWN_COLUMNS = component("unknownColumns");
/**
 * How a document (CSV, TSV, XML, csvContent) is read; passed to the catalog as given, which checks
 * them. A JSON product list, one product or NDJSON is no platform's file and takes none.
 */
export const READING = [PROFILE, SHOP_URL, CURRENCY, DECIMAL, VARIANTS, DELIMITER, UNKNOWN_COLUMNS] as const;

/** The export's format besides Accept: the catalog's own file, or a platform's feed. */
export const EXPORT_PROFILE: QueryParam = {
  name: "profile",
  doc: {
    name: "profile",
    in: "query",
    required: false,
    schema: { type: "string", enum: ["native", "google", "meta"], default: "native" },
    description:
      "`native`: the catalog's own CSV or NDJSON, as Accept chooses. `google` or `meta`: the site's products as a Google Merchant Center or Meta product feed (TSV, one item a product), which imports back with the same profile.",
  },
};
/** The currency of a feed's prices, when the site's configuration names none or another. */
export const EXPORT_CURRENCY: QueryParam = {
  name: "currency",
  doc: {
    name: "currency",
    in: "query",
    required: false,
    schema: { type: "string", pattern: "^[A-Za-z]{3}$" },
    description:
      "With profile=google or meta: the ISO 4217 code of the site's prices. Defaults to the site's configured currency; without either, the export is refused naming `currency`. A value that is no such code is refused naming it whatever the profile.",
  },
};
