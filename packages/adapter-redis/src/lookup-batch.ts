// Lookups by id, batched: every HMGET asked while the event loop runs its I/O callbacks goes out
// when they are done (setImmediate), as one pipeline per site. Under load, the requests of many
// connections arrive in one turn of the loop: one write and one read then serve them all, in this
// process and in Redis, whose CPU a lookup is mostly that of its round trip. One lookup alone is
// sent as it is, a turn later.
import type { Cluster, Redis } from "ioredis";
import { MERGING_FIELD } from "./keys.ts";

/** A site's merging mark and the JSON of the product whose id was asked, each null when absent. */
export type Looked = [merging: string | null, json: string | null];

interface Waiting {
  readonly id: string;
  readonly resolve: (value: Looked) => void;
  readonly reject: (error: unknown) => void;
}

/** Reads `HMGET products MERGING id` in batches; a batch is sent per products hash (one slot). */
export function lookupBatcher(client: Redis | Cluster): (products: string, id: string) => Promise<Looked> {
  let batches = new Map<string, Waiting[]>();

  function send(products: string, waiting: readonly Waiting[]): void {
    if (waiting.length === 1) {
      const [one] = waiting as [Waiting];
      client.hmget(products, MERGING_FIELD, one.id).then((reply) => one.resolve(reply as Looked), one.reject);
      return;
    }
    const pipeline = client.pipeline();
    for (const { id } of waiting) pipeline.hmget(products, MERGING_FIELD, id);
    pipeline.exec().then(
      (replies) => {
        waiting.forEach((w, i) => {
          const [error, reply] = replies?.[i] ?? [new Error("Redis gave no reply to a pipelined HMGET"), null];
          if (error) w.reject(error);
          else w.resolve(reply as Looked);
        });
      },
      (error: unknown) => {
        for (const w of waiting) w.reject(error);
      },
    );
  }

  function flush(): void {
    const due = batches;
    batches = new Map();
    for (const [products, waiting] of due) send(products, waiting);
  }

  return (products, id) =>
    new Promise<Looked>((resolve, reject) => {
      if (batches.size === 0) setImmediate(flush);
      const waiting = batches.get(products);
      if (waiting) waiting.push({ id, resolve, reject });
      else batches.set(products, [{ id, resolve, reject }]);
    });
}
