// Baseline: fastify serving the same catalog. GET with a response schema (fastify's fast path);
// POST bulk doing the same work as the product: parse the body, then import through the catalog
// (validate, store), answering its summary.
import { productJsonSchemas, toProductView } from "@catalog-kit/catalog-core";
import Fastify from "fastify";
import { announce, benchCatalog, SITE, serverArgs, TOKEN } from "./shared.ts";

const args = serverArgs();
const catalog = await benchCatalog(args);
// The product's own body limit (50 MiB), instead of fastify's 1 MiB default. With `--log-file`,
// fastify's own logger (pino, a line per request and per answer) writes to that file, as a
// fastify server started with `logger: { file }` does.
const logger = args.logFile === undefined ? false : { level: "info", file: args.logFile };
const app = Fastify({ logger, bodyLimit: 52_428_800 });
const { $schema: _, ...view } = productJsonSchemas().ProductView as Record<string, unknown>;

app.get<{ Params: { productId: string }; Querystring: { siteId?: string; siteType?: string } }>(
  "/external/product/v1/:productId",
  { schema: { response: { 200: view } } },
  async (request, reply) => {
    if (request.headers["x-service-access-token"] !== TOKEN) return reply.code(401).send({ code: "UNAUTHORIZED" });
    const { siteId, siteType } = request.query;
    if (!siteId || !siteType) return reply.code(400).send({ code: "VALIDATION_FAILED" });
    return toProductView(await catalog.getProduct({ siteId, siteType }, request.params.productId));
  },
);

app.post<{ Body: { products?: unknown } }>("/external/product/v1/bulk", async (request, reply) => {
  if (request.headers["x-service-access-token"] !== TOKEN) return reply.code(401).send({ code: "UNAUTHORIZED" });
  const summary = await catalog.importProducts(SITE, request.body?.products);
  return { message: `Imported ${summary.total} products`, ...summary };
});

await app.listen({ port: 0, host: "127.0.0.1" });
announce(app.server, () => catalog.close());
