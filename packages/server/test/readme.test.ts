// The README is the one configuration reference: its tables name exactly the keys the schema
// takes and the metrics the server exposes.
import { readFile } from "node:fs/promises";
import { createMemoryStore } from "@catalog-kit/adapter-memory";
import type { PoolStats } from "@catalog-kit/adapter-postgres";
import type { HandlerStats } from "@catalog-kit/http-node";
import { expect, it } from "vitest";
import { ConfigSchema } from "../src/config.ts";
import { HistorySchema } from "../src/history-config.ts";
import { createMetrics } from "../src/metrics.ts";
import * as memory from "../src/storage/memory.ts";
import * as postgres from "../src/storage/postgres.ts";
import * as redis from "../src/storage/redis.ts";
import * as sqlite from "../src/storage/sqlite.ts";

const readme = await readFile(new URL("../README.md", import.meta.url), "utf8");

// The first column of the table under `heading`, each cell's backquoted name.
function tableKeys(heading: string): string[] {
  const section = readme.slice(readme.indexOf(`\n## ${heading}\n`) + 1);
  const end = section.indexOf("\n## ", 1);
  return [...(end === -1 ? section : section.slice(0, end)).matchAll(/^\| ([^|]+?)\s+\|/gm)]
    .map(([, cell]) => cell as string)
    .filter((cell) => cell.startsWith("`"))
    .flatMap((cell) => [...cell.matchAll(/`([^`]+)`/g)].map(([, name]) => name as string));
}

it("the configuration file's table lists every key of the schema, and no other", () => {
  const limits = ConfigSchema.entries.limits.wrapped.entries;
  const schemaKeys = [
    ...Object.keys(ConfigSchema.entries),
    ...Object.keys(limits).map((key) => `limits.${key}`),
    ...Object.keys(ConfigSchema.entries.idempotency.wrapped.entries).map((key) => `idempotency.${key}`),
    ...Object.keys(ConfigSchema.entries.webhooks.wrapped.item.entries).map((key) => `webhooks[].${key}`),
    ...Object.keys(ConfigSchema.entries.webhookTargets.wrapped.entries).map((key) => `webhookTargets.${key}`),
    ...Object.keys(ConfigSchema.entries.webhookDelivery.wrapped.entries).map((key) => `webhookDelivery.${key}`),
    ...Object.keys(HistorySchema.entries).map((key) => `history.${key}`),
    "tokens[].defaultSite",
    "tokens[].name",
    "tokens[].scopes",
    "tokens[].rateLimits",
    ...Object.keys(ConfigSchema.entries.sites.pipe[0].item.entries)
      .filter((key) => key !== "siteId" && key !== "siteType")
      .map((key) => `sites[].${key}`),
  ].filter((key) => !["limits", "idempotency", "webhookTargets", "webhookDelivery"].includes(key));
  expect(tableKeys("Configuration file").sort()).toEqual(schemaKeys.sort());
});

it("the storage table lists every option of every bundled adapter, and no other", () => {
  const options = [
    memory.schema.entries,
    redis.schema.pipe[0].entries,
    postgres.schema.entries,
    sqlite.schema.entries,
  ].flatMap(Object.keys);
  const keys = new Set(["adapter", ...options]);
  expect(tableKeys("Storage").sort()).toEqual([...keys].map((key) => `storage.${key}`).sort());
});

it("the environment's table lists the variables the server reads", () => {
  expect(tableKeys("Environment")).toEqual(["PORT", "HOST", "CATALOG_CONFIG", "ACCESS_LOG"]);
});

it("the metrics' table lists every metric of the server's own, the pool's included", async () => {
  const stats = (): HandlerStats => ({ importsInFlight: 0, importsWaiting: 0 });
  const figures: PoolStats = { total: 0, idle: 0, inUse: 0, waiting: 0, imports: 0, importsWaiting: 0 };
  const pooled = { ...createMemoryStore(), poolStats: () => figures };
  const { body } = await createMetrics(stats, pooled).render();
  const own = [...body.matchAll(/^# HELP (catalog_\w+) /gm)].map(([, name]) => name as string);
  expect(own).toHaveLength(14);
  const listed = tableKeys("Metrics").filter((name) => name.startsWith("catalog_"));
  expect(listed.sort()).toEqual(own.sort());
});
