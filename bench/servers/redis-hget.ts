// Baseline: the least a GET by id can ask of Redis. Bare node:http, one HGET a request on the site's
// products hash through ioredis with auto-pipelining (the HGETs of one turn of the event loop go
// out in one write), the stored JSON answered as it is: no route, no check, no view.
import { createServer } from "node:http";
import { Redis } from "ioredis";
import { announce, KEY_PREFIX, SITE, serverArgs, TOKEN } from "./shared.ts";

const { redisUrl } = serverArgs();
if (redisUrl === undefined) throw new Error("--redis-url is required");
const redis = new Redis(redisUrl, { enableAutoPipelining: true });
// The adapter's layout (adapter-redis/src/keys.ts): a site's products hash, product id to JSON.
const products = `${KEY_PREFIX}:{${SITE.siteType}:${SITE.siteId}}:products`;
if ((await redis.hlen(products)) === 0) throw new Error(`${products} holds nothing: the adapter's keys have moved`);

const PREFIX = "/external/product/v1/";
const server = createServer({ keepAlive: true }, (req, res) => {
  const url = req.url ?? "";
  const id = decodeURIComponent(url.slice(PREFIX.length, url.indexOf("?")));
  if (req.headers["x-service-access-token"] !== TOKEN) {
    res.writeHead(401).end();
    return;
  }
  redis.hget(products, id).then(
    (json) => {
      if (json === null) res.writeHead(404).end();
      else
        res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(json) }).end(json);
    },
    () => res.writeHead(503).end(),
  );
});
server.listen(0, "127.0.0.1", () => announce(server, () => redis.quit()));
