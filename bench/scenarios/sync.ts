// Reading a whole site back and syncing a whole site, over HTTP, through the standalone server
// exactly as `npm start` runs it (its CLI under tsx, a configuration file), memory and Redis
// storage, a fresh server (and on Redis a fresh redis-server) for each part.
//
// Export: a site of 1,000,000 products (5,000 with --quick), loaded first with one streamed
// NDJSON import (not measured), then read back whole as NDJSON and as CSV (`GET
// /external/product/v1` by Accept), the client counting bytes and records without keeping the
// body; in the same rounds, the same site walked with the JSON list, 1,000 a page, cursor after
// cursor: the way to read a site without the export (its pages hold each product's retrieval
// view, five of its fields, about a third of the bytes of the export's full product).
//
// Replace: a site of 100,000 products (4,000 with --quick) synced with `mode=replace` to 90 % of
// them (every tenth product gone), as a raw NDJSON body and as one bulk JSON envelope; in the same
// rounds, each on an equal fresh site, the plain upsert of the same body. On PostgreSQL storage,
// the replace only, against the same replace on Redis in the same rounds.
//
// Merge: a site of 1,000,000 products (5,000 with --quick), loaded first (not measured), then in
// the same rounds against the same server the full re-import of the whole site's CSV (mode=upsert)
// and the merge of a `sku,price,available` CSV (mode=merge), both streamed, both changing every
// product's price and availability; memory, Redis and PostgreSQL storage.
//
// Single: a site of 1,000,000 products (5,000 with --quick) on SQLite, loaded first (not
// measured), then one-product imports one after another, timed one by one (median, p99), against
// the same on the memory store holding the same site.
// The parts live in ../sync/; this is the run's outline.
import { emit, guarded, progress } from "../report.ts";
import { available, STORAGES, type Storage, unavailableNote } from "../rig.ts";
import { exportPart } from "../sync/export.ts";
import { mergeName, mergePart } from "../sync/merge.ts";
import { postgresReplacePart } from "../sync/postgres.ts";
import { type ReplaceData, replaceData, replacePart } from "../sync/replace.ts";
import {
  count,
  EXPORT_PRODUCTS,
  MERGE_PRODUCTS,
  only,
  PARTS,
  type Part,
  REPLACE_PRODUCTS,
  SINGLE_PRODUCTS,
} from "../sync/setup.ts";
import { singleName, singlePart } from "../sync/single.ts";

/** `--only memory|redis|postgres|sqlite` and `--only export|replace|merge|single` (repeatable) narrow the run. */
function wanted(storage: Storage, part: Part): boolean {
  if (only === undefined) return true;
  const storages = only.filter((o) => (STORAGES as readonly string[]).includes(o));
  const parts = only.filter((o) => (PARTS as readonly string[]).includes(o));
  return (storages.length === 0 || storages.includes(storage)) && (parts.length === 0 || parts.includes(part));
}

let data: ReplaceData | undefined;
for (const storage of ["memory", "redis"] as const) {
  if (!wanted(storage, "export") && !wanted(storage, "replace")) continue;
  if (!available(storage)) {
    emit({
      name: `export and mode=replace, ${storage}`,
      scenario: "export and replace on Redis",
      figure: null,
      unit: "",
      note: unavailableNote(storage),
    });
    continue;
  }
  if (wanted(storage, "export")) {
    const name = `export ${count(EXPORT_PRODUCTS)}, ${storage}`;
    await guarded(name, `export of a site, ${storage}`, () => exportPart(storage));
  }
  if (wanted(storage, "replace")) {
    const name = `mode=replace ${count(REPLACE_PRODUCTS)}, ${storage}`;
    await guarded(name, `full sync (mode=replace), ${storage}`, async () => {
      progress(
        `${storage}: mode=replace and mode=upsert of ${count(Math.round(REPLACE_PRODUCTS * 0.9))} products into sites of ${count(REPLACE_PRODUCTS)}`,
      );
      data ??= replaceData();
      await replacePart(storage, data);
    });
  }
}

if (wanted("postgres", "replace")) {
  const missing = (["postgres", "redis"] as const).find((storage) => !available(storage));
  if (missing !== undefined) {
    emit({
      name: "mode=replace, postgres",
      scenario: "full sync on PostgreSQL",
      figure: null,
      unit: "",
      note: unavailableNote(missing),
    });
  } else {
    const name = `mode=replace ${count(REPLACE_PRODUCTS)}, postgres`;
    await guarded(name, "full sync (mode=replace), postgres", async () => {
      progress(
        `postgres and redis: mode=replace of ${count(Math.round(REPLACE_PRODUCTS * 0.9))} products into sites of ${count(REPLACE_PRODUCTS)}`,
      );
      data ??= replaceData();
      await postgresReplacePart(data);
    });
  }
}

for (const storage of ["memory", "redis", "postgres"] as const) {
  if (!wanted(storage, "merge")) continue;
  if (!available(storage)) {
    emit({
      name: mergeName(storage),
      scenario: `merge of a price-and-stock CSV, ${storage}`,
      figure: null,
      unit: "",
      note: unavailableNote(storage),
    });
    continue;
  }
  await guarded(mergeName(storage), `merge of a price-and-stock CSV (mode=merge), ${storage}`, async () => {
    progress(
      `${storage}: the full re-import and a merge of sku,price,available into a site of ${count(MERGE_PRODUCTS)}`,
    );
    await mergePart(storage);
  });
}

// SQLite against memory, each a fresh server loading the same site.
if (wanted("sqlite", "single")) {
  await guarded(singleName("sqlite"), "one-product imports into a large site, sqlite", async () => {
    progress(`sqlite and memory: one-product imports into a site of ${count(SINGLE_PRODUCTS)}`);
    await singlePart();
  });
}
