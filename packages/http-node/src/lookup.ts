// Retrieving and deleting one product by id or sku: `GET` and `DELETE` on a product's path (and
// on /bulk and /imports, the products whose id or sku is "bulk" or "imports"), with the product's
// entity tag. The hot path: nothing here allocates beyond what the answer needs.
import { encodeProduct, type LookupOptions, productTag, productViewJson, type Site } from "@catalog-kit/catalog-core";
import { etagOf, noneMatchHolds, readTagList, sendNotModified, strongTags } from "./conditional.ts";
import type { RequestContext } from "./context.ts";
import type { ProblemEntry } from "./problem.ts";
import { decodeProductId } from "./request-target.ts";
import { requestSite } from "./site-access.ts";
import { sendJson } from "./success.ts";

const ANY_FIELD: LookupOptions = {};
const BY_ID: LookupOptions = { by: "id" };
const BY_SKU: LookupOptions = { by: "sku" };
// The keys of the lookups on /bulk and /imports, whose paths have no product id of their own.
const BULK_KEY = "bulk";
const IMPORTS_KEY = "imports";

/** The product a request names: its key, the field it matches, and its site. */
export interface Target {
  readonly key: string;
  readonly options: LookupOptions;
  readonly site: Site;
}

/**
 * The product a request on one product names, its query's problems (`by`, and those `problems`
 * holds already) answered with the site's in one `VALIDATION_FAILED`.
 */
export function targetOf(ctx: RequestContext, problems: ProblemEntry[] = []): Target {
  const { by } = ctx.params;
  if (by !== undefined && by !== "id" && by !== "sku") {
    problems.push({ parameter: "by", message: "Query parameter by must be id or sku" });
  }
  const { resource } = ctx;
  const key =
    resource.kind === "product"
      ? decodeProductId(resource.rawId)
      : resource.kind === "imports"
        ? IMPORTS_KEY
        : BULK_KEY;
  const site = requestSite(ctx, { problems });
  return { key, options: by === undefined ? ANY_FIELD : by === "id" ? BY_ID : BY_SKU, site };
}

/**
 * Answers the product: its retrieval shape (`id, sku, title, featured_image, url`), or every field
 * with `view=full`; 304 when `If-None-Match` names its current copy.
 */
export async function serveGet(ctx: RequestContext): Promise<void> {
  const { view } = ctx.params;
  const problems: ProblemEntry[] = [];
  if (view !== undefined && view !== "basic" && view !== "full") {
    problems.push({ parameter: "view", message: "Query parameter view must be basic or full" });
  }
  const noneMatch = readTagList(ctx.req, "If-None-Match");
  const { key, options, site } = targetOf(ctx, problems);
  const product = await ctx.services.catalog.getProduct(site, key, options);
  const tag = productTag(product);
  if (noneMatch !== undefined && !noneMatchHolds(noneMatch, tag))
    return sendNotModified(ctx.res, tag, ctx.requestId, ctx.headers);
  const text = view === "full" ? encodeProduct(product) : productViewJson(product);
  sendJson(ctx.res, text, ctx.requestId, { etag: tag }, ctx.headers);
}

/** Deletes the product GET would return, freeing its sku, and answers `{ message }`; with `If-Match`, only that copy. */
export async function serveDelete(ctx: RequestContext): Promise<void> {
  const ifMatch = readTagList(ctx.req, "If-Match");
  const { key, options, site } = targetOf(ctx);
  const call = ifMatch === undefined ? options : { ...options, ifMatch: strongTags(ifMatch) };
  const product = await ctx.services.catalog.deleteProduct(site, key, call);
  const message = JSON.stringify({ message: `Product "${product.id}" (sku "${product.sku}") deleted` });
  sendJson(ctx.res, message, ctx.requestId, etagOf(product), ctx.headers);
}
