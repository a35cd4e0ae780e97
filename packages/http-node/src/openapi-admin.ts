// What /openapi.json says of the admin API: the schemas of its bodies and answers, and its examples.
import { SCOPES } from "@catalog-kit/catalog-core";

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
// Not blank, and no NUL (which PostgreSQL's text cannot hold); well-formed Unicode is JSON's own.
const NAME = { type: "string", minLength: 1, maxLength: 256, pattern: "^[^\\u0000]*\\S[^\\u0000]*$" };
const SITE = {
  type: "object",
  properties: { siteId: NAME, siteType: NAME },
  required: ["siteId", "siteType"],
  additionalProperties: false,
};
const SOURCE = {
  type: "string",
  enum: ["file", "api"],
  description:
    "`file`: from the configuration file (kept in force; not deleted through the API); `api`: made through the admin API",
};
const RATE_LIMITS = {
  type: "object",
  description: "The token's own limits; each absent is no limit of that kind",
  properties: {
    requestsPerMinute: { type: "integer", minimum: 1 },
    importBytesPerMinute: { type: "integer", minimum: 1 },
    importsPerSite: { type: "integer", minimum: 1 },
  },
  additionalProperties: false,
};
const TOKEN_FIELDS = {
  name: { type: "string", minLength: 1, maxLength: 200, description: "What the lists and the audit trail call it" },
  sites: {
    oneOf: [
      { const: "*", description: "Every site, those made later too" },
      { type: "array", items: SITE, minItems: 1 },
    ],
  },
  scopes: {
    type: "array",
    items: { type: "string", enum: [...SCOPES] },
    minItems: 1,
    uniqueItems: true,
    description:
      "`read` (GET a product, list, export), `import` (imports, merges, patches), `delete` (delete a product), `admin` (this API)",
  },
  expiresAt: { type: "string", format: "date-time", description: "After it, the token is refused (401)" },
  rateLimits: RATE_LIMITS,
};
const TOKEN_LISTING = {
  type: "object",
  description: "A token as listed: never its secret",
  properties: {
    id: { type: "string", description: "`file:<index>` for the configuration file's" },
    ...TOKEN_FIELDS,
    source: SOURCE,
    createdAt: { type: "string", format: "date-time" },
  },
  required: ["id", "name", "sites", "scopes", "source"],
};

/** The admin API's schemas, among the document's components. */
export const ADMIN_SCHEMAS = {
  SiteRequest: SITE,
  SiteListing: {
    type: "object",
    properties: {
      ...SITE.properties,
      source: SOURCE,
      createdAt: { type: "string", format: "date-time" },
      deleting: { const: true, description: "Its deletion runs, or was cut short: deleting it again finishes it" },
    },
    required: ["siteId", "siteType", "source"],
  },
  SiteList: {
    type: "object",
    properties: { sites: { type: "array", items: ref("SiteListing") } },
    required: ["sites"],
  },
  SiteDeleted: {
    type: "object",
    properties: {
      message: { type: "string" },
      deleted: { type: "integer", description: "Products deleted with it (with deleteProducts=true)" },
    },
    required: ["message", "deleted"],
  },
  TokenRequest: {
    type: "object",
    properties: TOKEN_FIELDS,
    required: ["name", "sites", "scopes"],
    additionalProperties: false,
  },
  TokenListing: TOKEN_LISTING,
  TokenList: {
    type: "object",
    properties: { tokens: { type: "array", items: ref("TokenListing") } },
    required: ["tokens"],
  },
  CreatedToken: {
    allOf: [
      ref("TokenListing"),
      {
        type: "object",
        properties: {
          token: {
            type: "string",
            description: "The secret, for X-Service-Access-Token: shown this once, only its SHA-256 is kept",
          },
        },
        required: ["token"],
      },
    ],
  },
  TokenRevoked: {
    type: "object",
    properties: { message: { type: "string" }, token: ref("TokenListing") },
    required: ["message", "token"],
  },
};

const site = { siteId: "shop-2", siteType: "shopify" };
const created = "2026-01-31T12:00:00.000Z";
const token = {
  id: "5f0c9a1e7b3d2c84a6e1f09b",
  name: "feed reader",
  sites: [site],
  scopes: ["read"],
  source: "api",
  createdAt: created,
};

/** Examples of the admin API's bodies and answers. */
export const ADMIN_EXAMPLES = {
  siteRequest: site,
  site: { ...site, source: "api", createdAt: created },
  sites: {
    sites: [
      { siteId: "demo", siteType: "demo", source: "file" },
      { ...site, source: "api", createdAt: created },
    ],
  },
  siteDeleted: { message: "Site shopify/shop-2 deleted, with its 120 products", deleted: 120 },
  tokenRequest: { name: "feed reader", sites: [site], scopes: ["read"], expiresAt: "2027-01-31T00:00:00Z" },
  createdToken: {
    ...token,
    expiresAt: "2027-01-31T00:00:00Z",
    token: "ck_3tq5vQ0xZ1b8mN4kR7yW2aP9cD6eF0gH1iJ2kL3mN4o",
  },
  tokens: {
    tokens: [
      { id: "file:0", name: "tokens[0]", sites: "*", scopes: ["read", "import", "delete"], source: "file" },
      token,
    ],
  },
  tokenRevoked: {
    message: `Token ${token.id} ("feed reader") revoked: it is refused everywhere within a second`,
    token,
  },
};
