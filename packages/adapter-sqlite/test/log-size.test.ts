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
    await importInChunks(store, site, numbered(0, 250_000, "large"), { chunk: 3000 });
    const grown = statSync(`${path}-wal`).size;
    expect(grown).toBeGreaterThan(64 * 1024 * 1024);
    for (let i = 0; i < 3; i++) await importInChunks(store, site, numbered(i, i + 1, `small ${i}`));
    expect(statSync(`${path}-wal`).size).toBeLessThanOrEqual(64 * 1024 * 1024);
  } finally {
    await store.close();
  }
}, 120_000);
