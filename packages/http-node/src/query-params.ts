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
/** `upsert` or `replace`: a full sync. */
export const MODE = component("mode");
/** Lets a replace empty the site. */
export const ALLOW_EMPTY = component("allowEmpty");
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
