// Lookups, batched: every lookup asked while the event loop runs its I/O callbacks goes out when
// they are done (setImmediate), as one command per site naming every key asked of it. Under load,
// the requests of many connections arrive in one turn of the loop: one command then serves them
// all, in this process and in Redis, whose CPU a lookup is mostly its share of a round trip (about
// 36 µs of Redis's CPU here) and then the command's own: measured at 20 lookups a round trip, one
// HMGET took Redis 2.3-2.5 µs a lookup where a pipeline of 20 took 2.5-3.3; at 100, 1.0 against 1.6.
// Lookups by sku only read holders, then products, two HMGETs a batch: 1.7 µs a lookup where
// the FIND_SKUS script took 4.5 (batches of 500, products of 870 bytes).
import type { Cluster, Redis } from "ioredis";
import type { StoreContext } from "./context.ts";
import { MERGING_FIELD, type SiteKeys } from "./keys.ts";
import { FIND_SKUS, type SkuLookup } from "./scripts/find-skus.ts";

/** A site's merging mark and the JSON of the product whose id was asked, each null when absent. */
export type Looked = [merging: string | null, json: string | null];

interface Waiting<Item, Value> {
  readonly item: Item;
  readonly resolve: (value: Value) => void;
  readonly reject: (error: unknown) => void;
}

// Keys one command names at most: a command Redis serves in well under a millisecond, so that a
// burst of lookups never holds up its other clients.
const MOST_KEYS = 500;

// Collects the items asked in one turn of the loop by group (a group is one site: one slot), and
// sends each group's in commands of at most MOST_KEYS; `send` answers one value per item, in order.
function batcher<Item, Value>(
  send: (items: readonly Item[]) => Promise<readonly Value[]>,
): (group: string, item: Item) => Promise<Value> {
  let batches = new Map<string, Waiting<Item, Value>[]>();

  function sendPart(waiting: readonly Waiting<Item, Value>[]): void {
    send(waiting.map((w) => w.item)).then(
      (values) => {
        for (let i = 0; i < waiting.length; i++) (waiting[i] as Waiting<Item, Value>).resolve(values[i] as Value);
      },
      (error: unknown) => {
        for (const w of waiting) w.reject(error);
      },
    );
  }

  function flush(): void {
    const due = batches;
    batches = new Map();
    for (const waiting of due.values()) {
      for (let from = 0; from < waiting.length; from += MOST_KEYS) sendPart(waiting.slice(from, from + MOST_KEYS));
    }
  }

  return (group, item) =>
    new Promise<Value>((resolve, reject) => {
      if (batches.size === 0) setImmediate(flush);
      const waiting = batches.get(group);
      if (waiting) waiting.push({ item, resolve, reject });
      else batches.set(group, [{ item, resolve, reject }]);
    });
}

/** Reads `HMGET products MERGING id...` in batches; a batch is sent per products hash (one slot). */
export function lookupBatcher(client: Redis | Cluster): (products: string, id: string) => Promise<Looked> {
  const batched = batcher<{ products: string; id: string }, Looked>(async (items) => {
    const [merging = null, ...found] = await client.hmget(
      (items[0] as { products: string }).products,
      MERGING_FIELD,
      ...items.map((item) => item.id),
    );
    return items.map((_, i) => [merging, found[i] ?? null]);
  });
  return (products, id) => batched(products, { products, id });
}

/**
 * Lookups by sku only, in batches of one site: `HMGET skus sku...` reads their holders, then
 * `HMGET products MERGING id...` the holders' products with the merging mark (read second, so
 * the mark says whether those products were the site's whole truth when read). Each answers
 * `undefined` when no product held its sku, else what was read of its holder.
 */
export function holderLookupBatcher(
  client: Redis | Cluster,
): (keys: SiteKeys, sku: string) => Promise<Looked | undefined> {
  const batched = batcher<{ keys: SiteKeys; sku: string }, Looked | undefined>(async (items) => {
    const { skus, products } = (items[0] as { keys: SiteKeys }).keys;
    const holders = await client.hmget(skus, ...items.map((item) => item.sku));
    const ids = holders.filter((id): id is string => id !== null);
    if (ids.length === 0) return holders.map(() => undefined);
    const [merging = null, ...jsons] = await client.hmget(products, MERGING_FIELD, ...ids);
    let at = 0;
    return holders.map((id): Looked | undefined => (id === null ? undefined : [merging, jsons[at++] ?? null]));
  });
  return (keys, sku) => batched(keys.products, { keys, sku });
}

/**
 * What a lookup that may be by sku found: the product's JSON (undefined when none matches), or
 * `"merging"` while a committed import is still merging (then FIND_MERGING reads through it).
 */
export type SkuLooked = { readonly json: string | undefined } | "merging";

/**
 * Runs FIND_SKUS in batches, one call per site: lookups by sku, and lookups by id then sku
 * (`by` undefined), each answered as one script call per key answered it. The script does every read of a batch, so
 * its answers are one moment's, and it declares only the site's keys (one slot).
 */
export function skuLookupBatcher(ctx: StoreContext): (keys: SiteKeys, lookup: SkuLookup) => Promise<SkuLooked> {
  const batched = batcher<{ keys: SiteKeys; lookup: SkuLookup }, SkuLooked>(async (items) => {
    const reply = await ctx.call(
      FIND_SKUS,
      (items[0] as { keys: SiteKeys }).keys,
      items.map((item) => item.lookup),
    );
    if (reply.outcome === "merging") return items.map(() => "merging" as const);
    return items.map((_, i) => ({ json: reply.jsons[i] }));
  });
  return (keys, lookup) => batched(keys.products, { keys, lookup });
}
