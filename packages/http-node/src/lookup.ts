// Retrieving and deleting one product by id or sku: `GET` and `DELETE` on a product's path (and
// on /bulk, the product whose id or sku is "bulk"). The hot path: nothing here allocates beyond
// what the answer needs.
import { type LookupOptions, productViewJson } from "@catalog-kit/catalog-core";
import type { RequestContext } from "./context.ts";
import type { ProblemEntry } from "./problem.ts";
import { decodeProductId } from "./request-target.ts";
import { requestSite } from "./site-access.ts";
import { sendJson } from "./success.ts";

const ANY_FIELD: LookupOptions = {};
const BY_ID: LookupOptions = { by: "id" };
const BY_SKU: LookupOptions = { by: "sku" };
// The key of GET and DELETE on /bulk, whose path has no product id of its own.
const BULK_KEY = "bulk";

async function lookup(ctx: RequestContext, remove: boolean): Promise<void> {
  const { by } = ctx.params;
  const problems: ProblemEntry[] = [];
  if (by !== undefined && by !== "id" && by !== "sku") {
    problems.push({ parameter: "by", message: "Query parameter by must be id or sku" });
  }
  const key = decodeProductId(ctx.resource.kind === "product" ? ctx.resource.rawId : BULK_KEY);
  const site = requestSite(ctx, { problems });
  const options = by === undefined ? ANY_FIELD : by === "id" ? BY_ID : BY_SKU;
  const { catalog } = ctx.services;
  if (remove) {
    const product = await catalog.deleteProduct(site, key, options);
    sendJson(
      ctx.res,
      JSON.stringify({ message: `Product "${product.id}" (sku "${product.sku}") deleted` }),
      ctx.requestId,
    );
  } else {
    sendJson(ctx.res, productViewJson(await catalog.getProduct(site, key, options)), ctx.requestId);
  }
}

/** Answers the product's retrieval shape: `id, sku, title, featured_image, url`. */
export const serveGet = (ctx: RequestContext): Promise<void> => lookup(ctx, false);

/** Deletes the product GET would return, freeing its sku, and answers `{ message }`. */
export const serveDelete = (ctx: RequestContext): Promise<void> => lookup(ctx, true);
