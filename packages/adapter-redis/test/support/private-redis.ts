// A redis-server of a test file's own: started before its tests with an admin client, and after
// them the stores the tests opened are closed, then the client and the server.
import type { CatalogStore } from "@catalog-kit/catalog-core";
import { type RedisServer, type RedisServerOptions, startRedisServer } from "@catalog-kit/test-support";
import { Redis } from "ioredis";
import { afterAll, beforeAll } from "vitest";

/** The file's server and admin client (read them inside a test or hook), and the stores to close after the tests. */
export interface PrivateRedis {
  readonly server: RedisServer;
  readonly admin: Redis;
  readonly stores: CatalogStore[];
}

/** Registers the hooks that start and stop a private redis-server around the calling file's tests. */
export function privateRedis(options?: RedisServerOptions): PrivateRedis {
  let server: RedisServer | undefined;
  let admin: Redis | undefined;
  const stores: CatalogStore[] = [];
  beforeAll(async () => {
    server = await startRedisServer(options);
    admin = new Redis(server.url);
  });
  afterAll(async () => {
    for (const store of stores) await store.close();
    admin?.disconnect();
    await server?.stop();
  });
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error("the private redis-server is read before its tests start");
    return value;
  };
  return {
    get server() {
      return started(server);
    },
    get admin() {
      return started(admin);
    },
    stores,
  };
}
