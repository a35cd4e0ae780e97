// A fresh standalone server for one case of the streamed-import and sync scenarios, exactly as
// `npm start` runs it, on memory or on a fresh redis-server of its own, whose commands are watched.
import { haveRedisServer, type RedisServer, startRedisServer } from "@catalog-kit/test-support";
import { Redis } from "ioredis";
import { forget, killRedisOnExit, type Standalone, startStandalone } from "./standalone.ts";
import { RedisWatch } from "./watch.ts";

/** Where the server keeps its products. */
export type Storage = "memory" | "redis";

/** Both storages, in the order the scenarios run them. */
export const STORAGES: readonly Storage[] = ["memory", "redis"];

/** How the rows name the server under test. */
export const SERVER = "standalone server as `npm start` runs it";

/** Whether `storage` can run here (Redis needs `redis-server`). */
export function available(storage: Storage): boolean {
  return storage === "memory" || haveRedisServer;
}

/** A running case: the server, Redis's side when on Redis; `stop` ends both. */
export interface Rig {
  readonly server: Standalone;
  readonly watch: RedisWatch | undefined;
  stop(): Promise<void>;
}

/**
 * Starts a server configured by `configOf(storage section)`: `{ adapter: "memory" }`, or a fresh
 * redis-server's address (key prefix `bench`). Nothing is left running when it fails to start.
 */
export async function startRig(storage: Storage, name: string, configOf: (storage: object) => object): Promise<Rig> {
  let redis: RedisServer | undefined;
  let admin: Redis | undefined;
  let redisPid: number | undefined;
  const stopRedis = async () => {
    admin?.disconnect();
    await redis?.stop();
    if (redisPid !== undefined) forget(redisPid);
  };
  if (storage === "redis") {
    redis = await startRedisServer();
    redisPid = await killRedisOnExit(redis.url);
    admin = new Redis({ port: redis.port, host: "127.0.0.1" });
  }
  let server: Standalone;
  try {
    server = await startStandalone(
      `${storage} ${name}`,
      configOf(redis === undefined ? { adapter: "memory" } : { adapter: "redis", url: redis.url, keyPrefix: "bench" }),
    );
  } catch (error) {
    // An open admin connection and a live redis-server would keep this process from ever exiting.
    await stopRedis();
    throw error;
  }
  return {
    server,
    watch: admin === undefined || redisPid === undefined ? undefined : new RedisWatch(admin, redisPid),
    async stop() {
      await server.stop();
      await stopRedis();
    },
  };
}
