// Baseline: the same GET on fastify, from the same catalog, with a response schema (fastify's fast path).
import { productJsonSchemas, toProductView } from "@catalog-kit/catalog-core";
import Fastify from "fastify";
import { announce, benchCatalog, serverArgs, TOKEN } from "./shared.ts";

const catalog = await benchCatalog(serverArgs());
const app = Fastify({ logger: false });
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
await app.listen({ port: 0, host: "127.0.0.1" });
announce(app.server, () => catalog.close());
