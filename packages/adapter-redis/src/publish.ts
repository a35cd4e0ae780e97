// The steps that publish a staged import, under the site lock: the site's size, the counts, and
// the two renaming scripts (COMMIT for the stage: keys, PUBLISH for an import's own keys).
import type { ImportCounts, KeyRecord } from "@catalog-kit/catalog-core";
import type { StoreContext } from "./context.ts";
import { lostLock, refused, unavailable } from "./errors.ts";
import type { IdempotencyKeys, ImportKeys, SiteKeys, SiteScriptKeys } from "./keys.ts";
import type { Reply } from "./lua.ts";
import { COMMIT, type CommitArgs } from "./scripts/commit.ts";
import { PUBLISH, type PublishArgs } from "./scripts/import-publish.ts";
import { SITE_SIZE } from "./scripts/site-size.ts";

/** What an import's adds counted, summed from their replies: numbers, never the ids. */
export interface Tally {
  /** Distinct ids staged: the entries of in:products, in:sku-of and in:ids. */
  ids: number;
  /** Skus some staged id claims: the entries of in:skus. */
  claimed: number;
  /** Skus more than one staged id claims. */
  contested: number;
  /** Skus one staged id claims whose entry in in:skus does not name it (`""`). */
  unheld: number;
  /** Chunks staged: the entries of in:pos. */
  chunks: number;
  /** Ids whose last add gave a base: the entries of in:bases. */
  based: number;
}

/** The answer of a publishing script that found the import's idempotency key recorded: nothing published. */
export interface Recorded {
  readonly recorded: KeyRecord;
}

/** The staging keys of an import, which every path drops (they expire anyway). */
export function stagingOf(keys: ImportKeys): string[] {
  return [keys.stageProducts, keys.stageSkus, keys.stageSkuOf, keys.stageIds];
}

/**
 * The counts of an import judged against a site of `siteSize` products, with `deleted` only
 * when the batch replaces the site: the site's products it does not name (`total - created`
 * of them it does name).
 */
export function countsOf(
  total: number,
  created: number,
  unchanged: number,
  replace: boolean,
  siteSize: number,
): ImportCounts {
  const counts = { created, updated: total - created - unchanged, unchanged };
  return replace ? { ...counts, deleted: siteSize - (total - created) } : counts;
}

/** How many products the site holds, read under the lock `token` holds. */
export async function siteSizeOf(ctx: StoreContext, keys: SiteKeys, token: string): Promise<number> {
  const reply = await ctx.call(SITE_SIZE, keys, { token, lockTtlMs: ctx.lockTtlMs });
  if (reply.outcome === "lost") throw lostLock();
  return reply.size;
}

/**
 * Publishes the stage: keys with the COMMIT script (`staged` products in them; `siteSize` when
 * they hold the site's whole next state; with `record`, the idempotency key to check and record).
 * A lost reply leaves the outcome unknown, and the error says so. Resolves to `merging` when the
 * caller has the import to fold in.
 */
export async function commit(
  ctx: StoreContext,
  keys: ImportKeys & IdempotencyKeys,
  args: Omit<CommitArgs, "lockTtlMs">,
): Promise<"ok" | "merging" | Recorded> {
  let reply: Reply<typeof COMMIT>;
  try {
    reply = await ctx.call(COMMIT, keys, { ...args, lockTtlMs: ctx.lockTtlMs });
  } catch (error) {
    throw unavailable(error, "commit of the import", "unknown");
  }
  if (reply.outcome === "lost" || reply.outcome === "evicted") throw refused(reply);
  return reply.outcome === "recorded" ? { recorded: reply.record } : reply.outcome;
}

/**
 * Publishes the import by renaming its keys (PUBLISH), `dropped` of its products having been
 * taken out as unchanged; with `check`, only checks it (a dry run); with `record`, checks and
 * records the idempotency key (`Recorded` when it has a record). A lost reply to a call that
 * may publish leaves the outcome unknown, and the error says so. Resolves to `merging` when the
 * caller has the import to fold in, `occupied` when an `empty` publish found products.
 */
export async function publish(
  ctx: StoreContext,
  keys: SiteScriptKeys,
  token: string,
  where: PublishArgs["where"],
  tally: Tally,
  {
    dropped = 0,
    siteSize = 0,
    check = false,
    record,
  }: { dropped?: number; siteSize?: number; check?: boolean; record?: PublishArgs["record"] } = {},
): Promise<"ok" | "merging" | "occupied" | Recorded> {
  const kept = tally.ids - dropped;
  const args: PublishArgs = {
    token,
    lockTtlMs: ctx.lockTtlMs,
    where,
    checkOnly: check,
    products: kept,
    skus: tally.claimed - dropped,
    chunks: tally.chunks,
    siteSize,
    record,
  };
  let reply: Reply<typeof PUBLISH>;
  try {
    reply = await ctx.call(PUBLISH, keys, args);
  } catch (error) {
    throw unavailable(error, "commit of the import", check ? "nothing written" : "unknown");
  }
  if (reply.outcome === "lost" || reply.outcome === "evicted") throw refused(reply);
  return reply.outcome === "recorded" ? { recorded: reply.record } : reply.outcome;
}
