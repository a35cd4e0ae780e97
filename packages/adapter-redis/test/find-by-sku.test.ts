import type { Product } from "@catalog-kit/catalog-core";
import { uniqueSite, upsert } from "@catalog-kit/catalog-core/testing";
import { describeWithRedis } from "@catalog-kit/test-support/vitest";
import { Redis } from "ioredis";
import { expect, test, vi } from "vitest";
import { createRedisStore, redisClientOptions } from "../src/index.ts";
import { checkKeyPrefix, siteKeys } from "../src/keys.ts";
import { FIND_SKUS } from "../src/scripts/find-skus.ts";
import { privateRedis } from "./support/private-redis.ts";
import { product } from "./support/products.ts";

// A lookup by sku reads the sku's holder, then the holder's product, in two commands: a write
// between them must never make it answer a product that no longer has the sku.

const write = { dryRun: false } as const;

describeWithRedis("a lookup by sku whose holder changes between its two reads", () => {
  const redis = privateRedis();

  test("answers the product that holds the sku after the move, read again in one moment", async () => {
    const client = new Redis(redis.server.url, redisClientOptions);
    const store = createRedisStore({ client, keyPrefix: "moving" });
    const other = createRedisStore({ url: redis.server.url, keyPrefix: "moving" });
    redis.stores.push(store, other);
    const site = uniqueSite();
    const x = product("x", "s");
    const y = product("y", "t");
    await upsert(store, site, [x, y], write);
    const skusKey = siteKeys(checkKeyPrefix("moving"), site).skus;
    // Once the holder of "s" (x) is read, x moves to "u" and y takes "s", before x is read.
    const hmget = client.hmget.bind(client);
    let moved = false;
    vi.spyOn(client, "hmget").mockImplementation((async (...args: Parameters<typeof client.hmget>) => {
      const reply = await hmget(...args);
      if (args[0] === skusKey && !moved) {
        moved = true;
        await upsert(
          other,
          site,
          [
            { ...x, sku: "u" },
            { ...y, sku: "s" },
          ],
          write,
        );
      }
      return reply;
    }) as typeof client.hmget);
    const call = vi.spyOn(client, "call");
    const found: Product | undefined = await store.find(site, "s", "sku");
    expect(moved).toBe(true);
    expect(found).toEqual({ ...y, sku: "s" });
    // The lookup asked FIND_SKUS once (its first ARGV is the SHA-1, or the source once Redis
    // answered NOSCRIPT).
    const sent = call.mock.calls.filter(([command, args]) => {
      const first = (args as unknown as unknown[])[0];
      return command === "EVALSHA" && (first === FIND_SKUS.sha || first === FIND_SKUS.lua);
    });
    expect(sent).toHaveLength(1);
    client.disconnect();
  });
});
