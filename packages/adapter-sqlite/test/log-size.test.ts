// The write-ahead log does not keep the size of the largest commit: once checkpointed, the next
// write cuts it back to 64 MiB.
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSqliteStore } from "@catalog-kit/adapter-sqlite";
import { uniqueSite } from "@catalog-kit/catalog-core/testing";
import { afterAll, expect, test } from "vitest";
import { importInChunks, numbered } from "./support/fixtures.ts";

const dir = mkdtempSync(join(tmpdir(), "catalog-sqlite-log-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("after a commit that wrote more than 64 MiB of log, the next writes cut the log back", async () => {
  const path = join(dir, "log.db");
  const store = createSqliteStore({ path });
  try {
    const site = uniqueSite();
    // Into a site that has products: an import into a new one writes its chunks as they come.
    await importInChunks(store, site, numbered(0, 1, "first"));
    await importInChunks(store, site, numbered(0, 320_000, "large"), { chunk: 3000 });
    const grown = statSync(`${path}-wal`).size;
    expect(grown).toBeGreaterThan(64 * 1024 * 1024);
    for (let i = 0; i < 3; i++) await importInChunks(store, site, numbered(i, i + 1, `small ${i}`));
    expect(statSync(`${path}-wal`).size).toBeLessThanOrEqual(64 * 1024 * 1024);
  } finally {
    await store.close();
  }
}, 120_000);

// A commit of 1,000 products or more is checkpointed after its answer, not within its COMMIT:
// with no later write to run it, the writer thread still copies the import into the file.
test("a large commit is copied from the log into the file after its answer, with no later write", async () => {
  const path = join(dir, "checkpoint.db");
  const store = createSqliteStore({ path });
  try {
    const site = uniqueSite();
    await importInChunks(store, site, numbered(0, 1, "first"));
    const before = statSync(path).size;
    await importInChunks(store, site, numbered(0, 20_000, "checkpointed"), { chunk: 2000 });
    const deadline = Date.now() + 10_000;
    while (statSync(path).size < before + 2 * 1024 * 1024 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(statSync(path).size).toBeGreaterThanOrEqual(before + 2 * 1024 * 1024);
  } finally {
    await store.close();
  }
}, 60_000);
