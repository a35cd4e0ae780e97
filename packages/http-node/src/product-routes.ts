// The operations on one product of the route table: retrieve, change and delete, by id or sku,
// each with its query, its serving function and what /openapi.json says of it.
import { serveDelete, serveGet } from "./lookup.ts";
import { ref } from "./openapi-components.ts";
import { EXAMPLES } from "./openapi-examples.ts";
import { operation } from "./operation.ts";
import { find, PATCHING } from "./operation-docs.ts";
import { servePatch } from "./patch.ts";
import { BY, DRY_RUN, SITE_ID, SITE_TYPE, VIEW } from "./query-params.ts";

// Retrieve, change and delete of one key: `suffix` names the operations, `what` the product. GET,
// PATCH and DELETE on /bulk are those of the key "bulk": the same operations, without productId.
/** The operations of one key: `suffix` names them, `what` the product, `key` how a description names it. */
export const lookups = (suffix: string, what: string, key: string) => ({
  GET: operation({
    action: "get",
    token: true,
    scope: "read",
    query: [SITE_ID, SITE_TYPE, BY, VIEW],
    serve: serveGet,
    doc: {
      operationId: `getProduct${suffix}`,
      summary: `Retrieve ${what}`,
      description: `${find(key)} The answer carries the product's \`ETag\`; with \`If-None-Match\` naming it, 304 and no body.`,
      tag: "Products",
      answer: {
        description: "The product: its retrieval shape, or every field with view=full",
        schema: { oneOf: [ref("ProductView"), ref("Product")] },
        example: EXAMPLES.productView,
      },
      conditional: "read",
      storage: true,
    },
  }),
  PATCH: operation({
    action: "patch",
    token: true,
    scope: "import",
    query: [SITE_ID, SITE_TYPE, BY, DRY_RUN],
    serve: servePatch,
    doc: {
      operationId: `patchProduct${suffix}`,
      summary: `Change fields of ${what}`,
      description: `${PATCHING} ${find(key)}`,
      tag: "Products",
      answer: {
        description: "The product as stored after the patch, every field",
        schema: ref("Product"),
        example: EXAMPLES.patched,
      },
      request: { schema: "ProductPatch", example: EXAMPLES.patchProduct, patch: true },
      conditional: "write",
      storage: true,
    },
  }),
  DELETE: operation({
    action: "delete",
    token: true,
    scope: "delete",
    query: [SITE_ID, SITE_TYPE, BY],
    serve: serveDelete,
    doc: {
      operationId: `deleteProduct${suffix}`,
      summary: `Delete ${what}`,
      description: `Deletes the product GET would return and frees its sku; with \`If-Match\`, only while it is a copy named. ${find(key)}`,
      tag: "Products",
      answer: { description: "The product was deleted", schema: ref("DeleteResult"), example: EXAMPLES.deleteResult },
      conditional: "write",
      storage: true,
    },
  }),
});
