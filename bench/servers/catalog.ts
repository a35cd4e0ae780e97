// The product under test: http-node's handler on startServer, over memory or Redis storage.
import { createCatalogHandler, startServer } from "@catalog-kit/http-node";
import { announce, benchCatalog, SITE, serverArgs, TOKEN } from "./shared.ts";

const catalog = await benchCatalog(serverArgs());
const handler = createCatalogHandler(catalog, { tokens: [{ token: TOKEN, sites: [SITE] }] });
const running = await startServer({ handler, port: 0 });
announce(running.server, () => catalog.close());
