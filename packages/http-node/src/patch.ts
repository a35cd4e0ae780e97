// `PATCH` on one product: a JSON Merge Patch (RFC 7396), read whole under the fairness rules of
// every body, applied by the catalog (which checks it, and `If-Match`, atomically with the write),
// answered with every field of the product as stored after it.
import { encodeProduct } from "@catalog-kit/catalog-core";
import { isGzip, parseJson, requireJson } from "./body.ts";
import { checkDeclaredSize, readBody } from "./body-stream.ts";
import { etagOf, readTagList, strongTags } from "./conditional.ts";
import type { RequestContext } from "./context.ts";
import { targetOf } from "./lookup.ts";
import { parseFlag } from "./request-target.ts";
import { sendJson } from "./success.ts";

/** The media type of a JSON Merge Patch; `application/json` (any JSON type) is read the same. */
export const MERGE_PATCH_TYPE = "application/merge-patch+json";

/** Applies the request's merge patch to the product GET would return, and answers the product after it. */
export async function servePatch(ctx: RequestContext): Promise<void> {
  const { req, res, services } = ctx;
  requireJson(req.headers["content-type"], ` or ${MERGE_PATCH_TYPE}`);
  const ifMatch = readTagList(req, "If-Match");
  const dryRun = parseFlag("dryRun", ctx.params.dryRun);
  const { key, options, site } = targetOf(ctx);
  const gzip = isGzip(req);
  const limit = services.maxBodyBytes;
  const declared = checkDeclaredSize(req, limit);
  const release = await services.admission.admit(ctx.grant, Number.isSafeInteger(declared) ? declared : limit, req);
  try {
    const patch = parseJson(await readBody(req, res, { limit, idleMs: services.idleMs, gzip }));
    const call = { ...options, dryRun, ...(ifMatch === undefined ? {} : { ifMatch: strongTags(ifMatch) }) };
    const product = await services.catalog.patchProduct(site, key, patch, call);
    sendJson(res, encodeProduct(product), ctx.requestId, etagOf(product), ctx.headers);
  } finally {
    release();
  }
}
