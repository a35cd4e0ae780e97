// The admin API's rows of the route table: sites and tokens made, listed and removed at run time,
// each needing the `admin` scope, with what /openapi.json says of them.
import {
  serveCreateSite,
  serveCreateToken,
  serveDeleteSite,
  serveListSites,
  serveListTokens,
  serveRevokeToken,
} from "./admin.ts";
import { ADMIN_EXAMPLES } from "./openapi-admin.ts";
import { ref } from "./openapi-components.ts";
import { operation } from "./operation.ts";

/** Where the admin API lives. */
export const ADMIN_PREFIX = "/admin/v1";

const pathParam = (name: string, description: string) => ({
  name,
  in: "path",
  required: true,
  schema: { type: "string", minLength: 1 },
  description,
});
const DELETE_PRODUCTS = {
  name: "deleteProducts",
  doc: {
    name: "deleteProducts",
    in: "query",
    required: false,
    schema: { type: "boolean", default: false },
    description:
      "Delete the site's products with it, in one step (a replace with nothing). Without it, a site that holds products is 409 `CONFLICT`.",
  },
};
const CONFLICT_SITE = "`CONFLICT`: the site exists (in the configuration file, made through the API, or being deleted)";
const CONFLICT_DELETE =
  "`CONFLICT`: the site comes from the configuration file, or holds products and `deleteProducts=true` was not given";
const INVALID = "`INVALID_JSON`, `VALIDATION_FAILED` (located by JSON pointers into the body)";
const MADE =
  "The change is in force on every server sharing the store within a second. Each admin action is one line of the server's audit trail, with the acting token's name.";

/** The admin API's route rows. */
export const ADMIN_ROUTES = {
  adminSites: {
    path: `${ADMIN_PREFIX}/sites`,
    methods: {
      GET: operation({
        action: "listSites",
        token: true,
        scope: "admin",
        query: [],
        serve: serveListSites,
        doc: {
          operationId: "listSites",
          summary: "List the sites",
          description: "Every site: the configuration file's (`source: file`) and those made through this API (`api`).",
          tag: "Admin",
          answer: { description: "The sites", schema: ref("SiteList"), example: ADMIN_EXAMPLES.sites },
          problems: {},
          storage: false,
        },
      }),
      POST: operation({
        action: "createSite",
        token: true,
        scope: "admin",
        query: [],
        serve: serveCreateSite,
        doc: {
          operationId: "createSite",
          summary: "Make a site",
          description: `Makes a site, empty, for imports. Its names are 1 to 256 characters of well-formed Unicode, not blank, no NUL. Two servers making the same site at once: one makes it, the other answers 409. ${MADE}`,
          tag: "Admin",
          answer: { description: "Made", schema: ref("SiteListing"), example: ADMIN_EXAMPLES.site, status: 201 },
          request: { schema: "SiteRequest", example: ADMIN_EXAMPLES.siteRequest },
          problems: { "400": INVALID, "409": CONFLICT_SITE, "415": "`UNSUPPORTED_MEDIA_TYPE`: the body must be JSON" },
          storage: true,
        },
      }),
    },
  },
  adminSite: {
    path: `${ADMIN_PREFIX}/sites/{siteType}/{siteId}`,
    methods: {
      DELETE: operation({
        action: "deleteSite",
        token: true,
        scope: "admin",
        notFoundStatus: 404,
        query: [DELETE_PRODUCTS],
        serve: serveDeleteSite,
        doc: {
          operationId: "deleteSite",
          summary: "Delete a site",
          description: `Deletes a site made through this API. It is marked first (imports to it are refused from then on, on every server), its products are then deleted in one step, and it goes last: a deletion cut short leaves the site listed with \`deleting: true\`, and deleting it again finishes it. ${MADE}`,
          tag: "Admin",
          answer: { description: "Deleted", schema: ref("SiteDeleted"), example: ADMIN_EXAMPLES.siteDeleted },
          pathParams: [
            pathParam("siteType", "The site's type, percent-encoded"),
            pathParam("siteId", "The site's id, percent-encoded"),
          ],
          problems: {
            "400": "`VALIDATION_FAILED` (`deleteProducts`, or a path parameter that is not percent-encoded UTF-8)",
            "404": "`SITE_NOT_FOUND`: no site made through this API has these names",
            "409": CONFLICT_DELETE,
          },
          storage: true,
        },
      }),
    },
  },
  adminTokens: {
    path: `${ADMIN_PREFIX}/tokens`,
    methods: {
      GET: operation({
        action: "listTokens",
        token: true,
        scope: "admin",
        query: [],
        serve: serveListTokens,
        doc: {
          operationId: "listTokens",
          summary: "List the tokens",
          description:
            "Every token: the configuration file's (`source: file`, id `file:<index>`) and those made through this API. Never a secret.",
          tag: "Admin",
          answer: { description: "The tokens", schema: ref("TokenList"), example: ADMIN_EXAMPLES.tokens },
          problems: {},
          storage: false,
        },
      }),
      POST: operation({
        action: "createToken",
        token: true,
        scope: "admin",
        query: [],
        serve: serveCreateToken,
        doc: {
          operationId: "createToken",
          summary: "Make a token",
          description: `Makes a token for its sites (\`*\`: every site) and scopes, until \`expiresAt\` if given. Its secret is in this answer only (\`token\`): only its SHA-256 is kept. Rotation without a gap: make the new token, move the clients, revoke the old one. ${MADE}`,
          tag: "Admin",
          answer: {
            description: "Made: its secret is shown this once",
            schema: ref("CreatedToken"),
            example: ADMIN_EXAMPLES.createdToken,
            status: 201,
          },
          request: { schema: "TokenRequest", example: ADMIN_EXAMPLES.tokenRequest },
          problems: {
            "400": `${INVALID}: a site that does not exist, a scope unknown, an expiry past`,
            "415": "`UNSUPPORTED_MEDIA_TYPE`: the body must be JSON",
          },
          storage: true,
        },
      }),
    },
  },
  adminToken: {
    path: `${ADMIN_PREFIX}/tokens/{id}`,
    methods: {
      DELETE: operation({
        action: "revokeToken",
        token: true,
        scope: "admin",
        query: [],
        serve: serveRevokeToken,
        doc: {
          operationId: "revokeToken",
          summary: "Revoke a token",
          description: `Revokes a token made through this API: it is refused (401) on every server within a second. ${MADE}`,
          tag: "Admin",
          answer: { description: "Revoked", schema: ref("TokenRevoked"), example: ADMIN_EXAMPLES.tokenRevoked },
          pathParams: [pathParam("id", "The token's id, as listed")],
          problems: {
            "404": "`TOKEN_NOT_FOUND`: no token has this id (or it was revoked)",
            "409":
              "`CONFLICT`: the token comes from the configuration file, or is the token asking (another admin token revokes it)",
          },
          storage: true,
        },
      }),
    },
  },
} as const;
