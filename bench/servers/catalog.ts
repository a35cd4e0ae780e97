// The product under test: http-node's handler on startServer, over memory or Redis storage; with
// `--rate-limits`, its token limited by a quota it never reaches, counted on a usage meter settled
// with a memory store of its own, so that only the cost of the limits differs.
import { createMemoryStore } from "@catalog-kit/adapter-memory";
import { createUsageMeter } from "@catalog-kit/catalog-core";
import { createCatalogHandler, startServer } from "@catalog-kit/http-node";
import { announce, benchCatalog, SITE, serverArgs, TOKEN } from "./shared.ts";

const args = serverArgs();
const catalog = await benchCatalog(args);
const limits = args.rateLimits
  ? {
      rateLimits: { requestsPerMinute: 1_000_000_000, importBytesPerMinute: 1_000_000_000_000, importsPerSite: 100 },
      usageMeter: createUsageMeter({ store: createMemoryStore() }),
    }
  : {};
const handler = createCatalogHandler(catalog, { tokens: [{ token: TOKEN, sites: [SITE] }], ...limits });
const running = await startServer({ handler, port: 0 });
announce(running.server, () => catalog.close());
