// The stage of a merge import between decoding and staging: each record's product is read from
// the store, the record merged onto it (merge.ts), and the result staged with what was read as its
// base, which the commit checks (clause 7 of `StagedImport.commit`). Its records are kept, in a
// compact log, so that a product named again, or a commit refused as stale, can be merged anew.
import { deflateRawSync, inflateRawSync } from "node:zlib";
import type { MissingPolicy } from "./catalog-options.ts";
import { CatalogError } from "./errors.ts";
import { mergeFields, namedBy, type Patch, readPatch } from "./merge.ts";
import { type Locator, type Place, Problems, type RecordPart } from "./parse.ts";
import type { Product } from "./product.ts";
import { KeyTable } from "./profiles/key-table.ts";
import type { Site } from "./site.ts";
import type { CatalogStore } from "./store.ts";

/** A step of a merge whose stored products are being read (`MergeStage.look`). */
export interface Looking {
  readonly records: readonly unknown[];
  readonly positions: readonly number[];
  readonly locate: Locator;
  readonly patches: readonly (Patch | undefined)[];
  readonly found: Promise<(Product | undefined)[]>;
}

/** Products to stage, with their positions and bases. */
export interface MergedChunk {
  readonly products: Product[];
  readonly positions: number[];
  readonly bases: (Product | null)[];
}

// The bytes of log a merge keeps at most: past it, a product named again, or a stale commit, can
// no longer be merged anew, and the import is refused instead.
const LOG_LIMIT = 128 * 1024 * 1024;
/** Skipped keys an answer lists at most. */
export const SKIPPED_KEYS = 100;

// One chunk of the log: the records' positions, their fields, and the id each named (null when
// it named no product; absent from `targets` when the record named it by that id).
interface LogChunk {
  readonly positions: number[];
  readonly records: unknown[];
  readonly targets: (string | null)[];
}

// A log chunk as its text holds it. A merge's records mostly carry the same fields in the same
// order (a CSV's columns), and their positions mostly follow one another: written as rows of
// values under one list of fields, from a first position, the log of a million price-and-stock
// rows takes about half the text the records' own JSON would.
interface LogText {
  /** The first position, when the positions follow one another; else `positions`. */
  readonly from?: number;
  readonly positions?: number[];
  /** The fields of the records written as arrays of values, in this order. */
  readonly fields: string[];
  /** A record with exactly `fields`, in their order, as its values; any other as it is. */
  readonly records: unknown[];
  readonly targets: (string | null)[];
}

function encodeChunk({ positions, records, targets }: LogChunk): LogText {
  const first = positions[0] ?? 0;
  let consecutive = true;
  for (let i = 0; consecutive && i < positions.length; i++) consecutive = positions[i] === first + i;
  const fields = records.length === 0 ? [] : Object.keys(records[0] as object);
  const rows = records.map((record) => {
    const values: unknown[] = [];
    for (const name in record as Record<string, unknown>) {
      const value = (record as Record<string, unknown>)[name];
      // JSON leaves an undefined field out of an object, but writes it as null in an array:
      // and null removes a field.
      if (name !== fields[values.length] || value === undefined) return record;
      values.push(value);
    }
    return values.length === fields.length ? values : record;
  });
  return { ...(consecutive ? { from: first } : { positions }), fields, records: rows, targets };
}

function decodeChunk(text: string): LogChunk {
  const { from, positions, fields, records, targets } = JSON.parse(text) as LogText;
  return {
    positions: positions ?? Array.from(records, (_, i) => (from as number) + i),
    records: records.map((row) => {
      if (!Array.isArray(row)) return row;
      const record: Record<string, unknown> = {};
      for (let k = 0; k < fields.length; k++) record[fields[k] as string] = row[k];
      return record;
    }),
    targets,
  };
}

/**
 * The records of a merge in request order, kept as compressed UTF-8 JSON while it runs: outside
 * the JavaScript heap, whose size the collector lets grow in proportion to what it holds, so that
 * a log of tens of megabytes would cost a multiple of them in resident memory as strings. The
 * fastest level of deflate takes a million price-and-stock rows from 48 MB to a quarter of that,
 * for about a microsecond a record.
 */
export class MergeLog {
  private chunks: Buffer[] = [];
  private size = 0;
  /** False once the log outgrew its limit and was let go. */
  kept = true;

  append(chunk: LogChunk): void {
    if (!this.kept) return;
    const deflated = deflateRawSync(JSON.stringify(encodeChunk(chunk)), { level: 1 });
    // zlib writes into pieces of 16 KB: a step's 7 KB would keep a whole piece, the log of a
    // million records 33 MB instead of 13, so shorter bytes are copied out, into memory of their
    // own (a slice of Buffer's shared pool would keep its whole slab alive instead).
    let bytes = deflated;
    if (deflated.length < deflated.buffer.byteLength) {
      bytes = Buffer.allocUnsafeSlow(deflated.length);
      deflated.copy(bytes);
    }
    this.size += bytes.length;
    if (this.size > LOG_LIMIT) {
      this.kept = false;
      this.chunks = [];
      return;
    }
    this.chunks.push(bytes);
  }

  /** The chunks in order; each is let go once read. */
  *read(): Generator<LogChunk> {
    const { chunks } = this;
    this.chunks = [];
    this.size = 0;
    for (let i = 0; i < chunks.length; i++) {
      const bytes = chunks[i] as Buffer;
      chunks[i] = EMPTY;
      yield decodeChunk(inflateRawSync(bytes).toString());
    }
  }

  /** Reads the chunks without letting them go. */
  *peek(): Generator<LogChunk> {
    for (const bytes of this.chunks) yield decodeChunk(inflateRawSync(bytes).toString());
  }
}

const EMPTY = Buffer.alloc(0);

/** The error of a merge that can no longer be merged anew (its log outgrew its limit). */
const tooLarge = (place: Place) =>
  new CatalogError(
    "VALIDATION_FAILED",
    "Merge refused: a product was named again after the merge held 128 MB of records; name each product once in an import this large",
    { problems: [{ ...place, message: "Names a product named earlier in the import" }] },
  );

/** The error of a merge whose products kept changing under it. */
export const concurrentUpdate = () =>
  new CatalogError(
    "CONCURRENT_UPDATE",
    "Products this merge changes were changed by other writes while it ran, again and again; nothing was written: send it again",
  );

/** Attempts of a merge whose commit met products changed since it read them. */
export const MERGE_ATTEMPTS = 8;

/** The wait before attempt `attempt + 1`: growing, jittered, so that writers that collided do not collide again. */
export const pause = (attempt: number) =>
  new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(200, 5 * 2 ** attempt)));

/** Reads, merges and stages the records of one attempt of a merge import. */
export class MergeStage {
  private readonly store: CatalogStore;
  private readonly site: Site;
  private readonly missing: MissingPolicy;
  private readonly log = new MergeLog();
  // Ids staged so far, as fingerprints: one seen again (or a rare false match) is merged anew at the end.
  private readonly staged = new KeyTable();
  private readonly again = new Set<string>();
  private firstAgain: number | undefined;
  skipped = 0;
  readonly skippedKeys: string[] = [];
  /** Records that named no product, each a problem. */
  notFound = 0;

  constructor(store: CatalogStore, site: Site, missing: MissingPolicy) {
    this.store = store;
    this.site = site;
    this.missing = missing;
  }

  /** Reads the stored products a patch names, as the store batches lookups asked together. */
  private read(keys: readonly (readonly [string, "id" | "sku"] | undefined)[]): Promise<(Product | undefined)[]> {
    return Promise.all(keys.map((key) => (key === undefined ? undefined : this.store.find(this.site, key[0], key[1]))));
  }

  // The product a patch makes of what the store holds (`base`), by the missing policy when it holds
  // nothing; `undefined` when skipped or refused.
  private merge(
    base: Product | undefined,
    patch: Patch,
    at: (path: readonly PropertyKey[]) => Place,
    problems: Problems,
  ) {
    if (base === undefined && this.missing !== "create") {
      if (this.missing === "skip") {
        this.skipped++;
        if (this.skippedKeys.length < SKIPPED_KEYS) this.skippedKeys.push(patch.key);
      } else {
        this.notFound++;
        problems.add({
          ...at([patch.by]),
          message: `No product with ${patch.by} "${patch.key}" in this site`,
          code: "PRODUCT_NOT_FOUND",
        });
      }
      return undefined;
    }
    return mergeFields(base, patch.fields, at, problems);
  }

  /**
   * A step of records read apart, and their stored products asked for at once: the lookups of
   * the next steps go out while this one is merged (`merged`), so that the store reads while
   * the catalog merges.
   */
  look(records: readonly unknown[], positions: readonly number[], locate: Locator): Looking {
    // A record's problems are added in its turn, when merged: a bad record is read again (rare, and cheap).
    const scratch = new Problems();
    const patches = records.map((record, i) => readPatch(record, (path) => locate(i, path), scratch));
    const found = this.read(patches.map((patch) => patch && ([patch.key, patch.by] as const)));
    // Awaited by `merged`; a step never merged (the import failed first) must not fail the process.
    found.catch(() => {});
    return { records, positions, locate, patches, found };
  }

  /** The products of a step, each merged onto the stored product it names, with its base. */
  async merged(
    { records, positions, locate, patches, found: finding }: Looking,
    problems: Problems,
  ): Promise<MergedChunk> {
    const found = await finding;
    const out: MergedChunk = { products: [], positions: [], bases: [] };
    const log: LogChunk = { positions: [], records: [], targets: [] };
    for (let i = 0; i < patches.length; i++) {
      const patch = patches[i];
      if (patch === undefined) {
        readPatch(records[i], (path) => locate(i, path), problems);
        continue;
      }
      const position = positions[i] as number;
      const base = found[i];
      const target = base?.id ?? (patch.by === "id" ? patch.key : undefined);
      log.positions.push(position);
      log.records.push(patch.fields);
      if (patch.by === "sku") log.targets[log.positions.length - 1] = target ?? null;
      if (target !== undefined && this.staged.get(target) !== undefined) {
        this.again.add(target);
        this.firstAgain ??= position;
        continue;
      }
      const product = this.merge(base, patch, (path) => locate(i, path), problems);
      if (product === undefined) continue;
      this.staged.add(product.id, position);
      out.products.push(product);
      out.positions.push(position);
      out.bases.push(base ?? null);
    }
    this.log.append(log);
    return out;
  }

  /**
   * The products named more than once, each merged anew: every record that named it, in request
   * order, onto the product the store holds now, which becomes its base.
   */
  async finish(locate: Locator, problems: Problems): Promise<MergedChunk> {
    const out: MergedChunk = { products: [], positions: [], bases: [] };
    if (this.again.size === 0) return out;
    if (!this.log.kept) throw tooLarge(locate(this.firstAgain as number, []));
    const named = new Map<string, { position: number; fields: Record<string, unknown> }[]>();
    for (const chunk of this.log.peek()) {
      for (let i = 0; i < chunk.positions.length; i++) {
        const fields = chunk.records[i] as Record<string, unknown>;
        const target = chunk.targets[i] ?? (fields.id as string | undefined);
        if (target === undefined || target === null || !this.again.has(target)) continue;
        let list = named.get(target);
        if (list === undefined) named.set(target, (list = []));
        list.push({ position: chunk.positions[i] as number, fields });
      }
    }
    const ids = [...named.keys()];
    const found = await this.read(ids.map((id) => [id, "id"] as const));
    for (let n = 0; n < ids.length; n++) {
      const base = found[n];
      let product = base;
      let position = 0;
      for (const record of named.get(ids[n] as string) as { position: number; fields: Record<string, unknown> }[]) {
        position = record.position;
        const at = (path: readonly PropertyKey[]) => locate(record.position, path);
        const fields = record.fields;
        // A logged record passed readPatch: it names its product.
        const by = namedBy(fields) as "id" | "sku";
        const merged = this.merge(product, { by, key: fields[by] as string, fields }, at, problems);
        if (merged === undefined) break;
        product = merged;
      }
      if (product === undefined || product === base) continue;
      out.products.push(product);
      out.positions.push(position);
      out.bases.push(base ?? null);
    }
    return out;
  }

  /** Whether the import can be merged anew, its records all kept. */
  get replayable(): boolean {
    return this.log.kept;
  }

  /** The records of this attempt, for the next one: its parts, as a source gives them. */
  *records(): Generator<RecordPart> {
    for (const chunk of this.log.read()) yield { records: chunk.records, positions: chunk.positions };
  }
}
