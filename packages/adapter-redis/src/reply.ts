// What the store's Lua scripts answer, decoded in one place. Every script replies with a table
// whose first element names its outcome, from one vocabulary shared by all of them, and whose
// other elements are that outcome's payload, which the script's own decoder reads. A read that
// found one value (or none) may answer it bare, a string or nil, for `ok` with that value: Redis
// sends a bare string in about three quarters of the time of a two-element table, which is the
// difference on a lookup. A call site then switches on `reply.outcome` and never casts what
// Redis sent.
import {
  decodeProduct,
  type ImportCounts,
  type KeyRecord,
  type Product,
  type SkuConflict,
} from "@catalog-kit/catalog-core";

/**
 * The outcomes a script may answer. Each means the same in every script that answers it:
 *
 * - `ok`: it did what was asked (a read, with what it read);
 * - `busy`: another import holds the site (or, to a one-call write, a committed one is still
 *   merging), or another claim holds an idempotency key: nothing done;
 * - `merging`: a committed import lies beside the site as its merging keys: a read must go
 *   through it (nothing read), and a commit that answers it published the import there, for the
 *   caller to fold in;
 * - `unindexed`: the site's id index does not hold exactly its products' ids: nothing read;
 * - `conflicts`: skus held by other products of the site: nothing written;
 * - `lost`: the site lock is no longer the caller's (or the site is not as judged under it):
 *   nothing written;
 * - `evicted`: a key of the import's staging lost entries or vanished: nothing written;
 * - `occupied`: a publish into an empty site found products there: nothing written;
 * - `recorded`: the idempotency key has a record (the payload), which a commit wrote: nothing written;
 * - `claimed`: another import holds the idempotency key's claim: nothing written;
 * - `stale`: a stored product is no longer the base its import was made from: nothing written;
 * - `unmet`: the condition of a conditional write does not hold: nothing written.
 */
export type Outcome =
  | "ok"
  | "busy"
  | "merging"
  | "unindexed"
  | "conflicts"
  | "lost"
  | "evicted"
  | "occupied"
  | "recorded"
  | "claimed"
  | "stale"
  | "unmet";

/** A sku conflict as a script finds it, before its position in the import is known. */
export type Unplaced = Omit<SkuConflict, "position">;

function malformed(script: string, what: string): Error {
  return new Error(`The ${script} script answered ${what}`);
}

/** The payload of a reply: its elements after the outcome, counted from 0. */
export class Payload {
  private readonly script: string;
  private readonly reply: readonly unknown[];

  constructor(script: string, reply: readonly unknown[]) {
    this.script = script;
    this.reply = reply;
  }

  /** How many elements follow the outcome. */
  get length(): number {
    return this.reply.length - 1;
  }

  int(i: number): number {
    const value = this.reply[i + 1];
    if (typeof value !== "number") throw malformed(this.script, `${String(value)} where a number belongs`);
    return value;
  }

  text(i: number): string {
    const value = this.reply[i + 1];
    if (typeof value !== "string") throw malformed(this.script, `${String(value)} where a string belongs`);
    return value;
  }

  /** The element at `i`, one of `values`. */
  oneOf<const V extends string>(i: number, values: readonly V[]): V {
    const value = this.text(i);
    if (!(values as readonly string[]).includes(value)) throw malformed(this.script, `${value} where ${values} belong`);
    return value as V;
  }

  /** The element at `i`, absent when the reply ends before it or holds nil there (a Lua false). */
  optionalText(i: number): string | undefined {
    return this.reply[i + 1] == null ? undefined : this.text(i);
  }

  /** The product whose canonical JSON is at `i`, if any. */
  optionalProduct(i: number): Product | undefined {
    const json = this.optionalText(i);
    return json === undefined ? undefined : decodeProduct(json);
  }

  /** The products whose canonical JSON is every element from `from` on. */
  products(from = 0): Product[] {
    const out: Product[] = [];
    for (let i = from; i < this.length; i++) out.push(decodeProduct(this.text(i)));
    return out;
  }

  /** Every element from `from` on, each a string. */
  texts(from = 0): string[] {
    const out: string[] = [];
    for (let i = from; i < this.length; i++) out.push(this.text(i));
    return out;
  }

  /** Every element from `from` on, in groups of `size` strings. */
  groups(from: number, size: number): string[][] {
    if ((this.length - from) % size !== 0) throw malformed(this.script, `a list not in groups of ${size}`);
    const out: string[][] = [];
    for (let i = from; i < this.length; i += size) {
      const group: string[] = [];
      for (let j = 0; j < size; j++) group.push(this.text(i + j));
      out.push(group);
    }
    return out;
  }

  /** The idempotency record at `i`: the JSON that `remember` (prelude.ts) wrote. */
  record(i: number): KeyRecord {
    const text = this.text(i);
    let parsed: { fingerprint?: unknown; counts?: Record<string, unknown> } | undefined;
    try {
      parsed = JSON.parse(text);
    } catch {
      // Reported below, as any other shape.
    }
    const counts = parsed?.counts;
    const names = ["created", "updated", "unchanged", ...(counts && "deleted" in counts ? ["deleted"] : [])];
    if (typeof parsed?.fingerprint !== "string" || !names.every((name) => Number.isSafeInteger(counts?.[name]))) {
      throw malformed(this.script, `the record ${text}`);
    }
    const [created = 0, updated = 0, unchanged = 0, deleted] = names.map((name) => counts?.[name] as number);
    const known: ImportCounts = { created, updated, unchanged, ...(deleted === undefined ? {} : { deleted }) };
    return { fingerprint: parsed.fingerprint, counts: known };
  }

  /** The conflicts listed from `from` on, as sku, id, heldBy triples. */
  conflicts(from = 0): Unplaced[] {
    return this.groups(from, 3).map(([sku, id, heldBy]) => ({ sku, id, heldBy }) as Unplaced);
  }
}

/**
 * How a script's replies are read: for each outcome it may answer, `null` when it carries
 * nothing, or a function that reads its payload into the fields of the decoded reply.
 */
export type Decoders = { readonly [O in Outcome]?: ((payload: Payload) => object) | null };

/** The decoded replies of a script with these decoders: a union discriminated by `outcome`. */
export type ReplyOf<D extends Decoders> = {
  [O in keyof D & Outcome]: D[O] extends (payload: Payload) => infer R
    ? { readonly outcome: O } & { readonly [K in keyof R]: R[K] }
    : { readonly outcome: O };
}[keyof D & Outcome];

/**
 * Decodes what `script` answered, a bare string or nil as `ok` with that value; an outcome it
 * does not declare, or any other shape, is an error.
 */
export function decodeReply<D extends Decoders>(script: string, decoders: D, answer: unknown): ReplyOf<D> {
  const raw = answer === null || typeof answer === "string" ? ["ok", answer] : answer;
  if (!Array.isArray(raw) || typeof raw[0] !== "string" || !Object.hasOwn(decoders, raw[0])) {
    throw malformed(script, Array.isArray(raw) ? `the outcome ${String(raw[0])}` : `${String(raw)}`);
  }
  const outcome = raw[0] as Outcome;
  const read = decoders[outcome];
  return (read ? { outcome, ...read(new Payload(script, raw)) } : { outcome }) as ReplyOf<D>;
}
