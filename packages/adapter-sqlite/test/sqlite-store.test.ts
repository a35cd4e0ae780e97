// The SQLite store against the storage contract, each store on a file of its own.
import { closeSync, existsSync, mkdtempSync, openSync, rmSync, statSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSqliteStore } from "@catalog-kit/adapter-sqlite";
import { testCatalogStore } from "@catalog-kit/catalog-core/testing";
import { afterAll } from "vitest";

const dir = mkdtempSync(join(tmpdir(), "catalog-sqlite-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const freshFile = () => join(dir, `store-${++files}.db`);

// Overwrites a file with bytes that are no SQLite file, at its own length: the -shm file is mapped
// into the store's memory, and a shorter one would end the process rather than fail a call.
function scramble(path: string): void {
  if (!existsSync(path)) return;
  const length = Math.max(statSync(path).size, 4096);
  const fd = openSync(path, "r+");
  writeSync(fd, Buffer.alloc(length, 0x5a), 0, length, 0);
  closeSync(fd);
}

testCatalogStore(() => createSqliteStore({ path: freshFile() }), {
  // SQLite has no server to lose: its backend is the file. A file that stops holding the database
  // under the store (a failing disk, a file replaced or overwritten) is what every call then meets.
  breakable: async () => {
    const path = freshFile();
    return {
      store: createSqliteStore({ path }),
      breakBackend: async () => {
        for (const suffix of ["", "-wal", "-shm"]) scramble(path + suffix);
      },
    };
  },
});
