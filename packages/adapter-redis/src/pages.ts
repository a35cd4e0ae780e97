// Walking a hash (or a sorted set) of any size a page at a time, with a few pages' script calls in
// flight.
import type { StoreContext } from "./context.ts";

/**
 * Runs `task` on the fields of hash `key`, one HSCAN page (about `ctx.chunkSize` fields) at a
 * time, with up to `ctx.window` tasks in flight while the next pages are read. HSCAN returns
 * every field present throughout the walk, but may return one twice (the hash may be resized
 * between pages), so `task` must be idempotent. After the first failure no task starts; the
 * first error is thrown once the running ones settle. With `kind` "zset", the members of a
 * sorted set, by ZSCAN, which promises the same.
 */
export async function eachPage(
  ctx: StoreContext,
  key: string,
  task: (fields: string[]) => Promise<void>,
  kind: "hash" | "zset" = "hash",
): Promise<void> {
  const running = new Set<Promise<void>>();
  let failure: { error: unknown } | undefined;
  let cursor = "0";
  try {
    do {
      const [next, fields] = await ctx.scanFields(key, cursor, ctx.chunkSize, kind);
      cursor = next;
      while (running.size >= ctx.window) await Promise.race(running);
      if (failure !== undefined) break;
      if (fields.length === 0) continue;
      const run: Promise<void> = task(fields)
        .catch((error: unknown) => {
          failure ??= { error };
        })
        .finally(() => running.delete(run));
      running.add(run);
    } while (cursor !== "0");
  } catch (error) {
    failure ??= { error };
  }
  // Tasks still running are waited for even after a failure: none may write after the caller cleans up.
  await Promise.all(running);
  if (failure !== undefined) throw failure.error;
}
