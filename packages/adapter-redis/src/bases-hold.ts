// The check of a merge's bases on its own, for the commit of an import that claims a sku twice,
// which must answer stale before the conflicts it finds ahead of any walk against the site; the
// other commits check their bases as they judge the import (JUDGE_BASED).
import type { StoreContext } from "./context.ts";
import { refused } from "./errors.ts";
import type { IncomingKeys, SiteKeys } from "./keys.ts";
import type { Tally } from "./publish.ts";
import { BASES } from "./scripts/import-bases.ts";

/**
 * Whether every base the import staged is still the stored product of its id (clause 7 of
 * `commit`), read under the lock `token` holds, which keeps the site so until the publish: a
 * page of in:bases per call, scanned by the script, which checks the count on every page.
 */
export async function basesHold(
  ctx: StoreContext,
  keys: SiteKeys & IncomingKeys,
  token: string,
  tally: Tally,
): Promise<boolean> {
  let cursor = "0";
  do {
    const reply = await ctx.call(BASES, keys, {
      token,
      lockTtlMs: ctx.lockTtlMs,
      based: tally.based,
      cursor,
      count: ctx.chunkSize,
    });
    if (reply.outcome === "stale") return false;
    if (reply.outcome !== "ok") throw refused(reply);
    cursor = reply.cursor;
  } while (cursor !== "0");
  return true;
}
