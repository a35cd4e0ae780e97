// The query parameters of the routes: a name, which the route table's allowlists hold, and what
// /openapi.json says of it (inline, or a reference to the document's components).
import { LIST_LIMIT } from "@catalog-kit/catalog-core";

/** A query parameter an operation takes. */
export interface QueryParam {
  readonly name: string;
  /** Its OpenAPI parameter object, or a `$ref` to one among the document's components. */
  readonly doc: object;
}

const component = (name: string): QueryParam => ({ name, doc: { $ref: `#/components/parameters/${name}` } });

function siteParam(name: "siteId" | "siteType", required: boolean, description: string): QueryParam {
  const example = name === "siteId" ? "shop-1" : "shopify";
  return {
    name,
    doc: { name, in: "query", required, schema: { type: "string", minLength: 1 }, description, example },
  };
}

const rawSite = (name: "siteId" | "siteType") =>
  siteParam(
    name,
    false,
    `For a raw CSV or NDJSON body: ${name} of the site to import into (give both siteId and siteType, or neither for the token's default site). JSON envelopes name their site in the body.`,
  );

/** The site of a lookup or a list: required. */
export const SITE_ID = siteParam("siteId", true, "siteId of the site to search in");
/** See `SITE_ID`. */
export const SITE_TYPE = siteParam("siteType", true, "siteType of the site to search in");
/** The site of a raw import body: both, or neither for the token's default site. */
export const RAW_SITE_ID = rawSite("siteId");
/** See `RAW_SITE_ID`. */
export const RAW_SITE_TYPE = rawSite("siteType");
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
    schema: { type: "string", minLength: 1 },
    description: "The `nextCursor` of the page before",
  },
};
