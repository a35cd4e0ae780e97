// What a test file asks of the run's shared servers (see shared-servers.ts): their addresses,
// each started by the first file that asks, and a tag of the file's own for its key prefixes and
// schemas, since files running side by side use the same servers.
import { inject } from "vitest";
import type { SharedAddresses, SharedKind } from "./shared-servers.ts";

async function addresses(kind: SharedKind): Promise<readonly string[]> {
  const response = await fetch(`${inject("sharedServers")}/${kind}`);
  const text = await response.text();
  if (!response.ok) throw new Error(`the run's shared ${kind} did not start: ${text}`);
  return (JSON.parse(text) as SharedAddresses).urls;
}

/** The URL (`redis://127.0.0.1:<port>`) of the run's redis-server: never kill, flush or reconfigure it. */
export async function sharedRedis(): Promise<string> {
  return (await addresses("redis"))[0] as string;
}

/** The masters' URLs of the run's Redis Cluster of three: never kill, flush or reshard it. */
export async function sharedRedisCluster(): Promise<readonly string[]> {
  return addresses("cluster");
}

/** The URL of the run's PostgreSQL (database `catalog`, user `catalog`): never stop or reconfigure it. */
export async function sharedPostgres(): Promise<string> {
  return (await addresses("postgres"))[0] as string;
}

/**
 * A tag unique to the calling file within the run (lowercase letters and digits, starting with
 * a letter): the start of its key prefixes and schema names on the shared servers.
 */
export const FILE_TAG = `f${Math.random().toString(36).slice(2, 10)}`;
