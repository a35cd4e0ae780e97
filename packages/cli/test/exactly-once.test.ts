// An import whose connection is lost after the server took its body whole, against the real
// catalog: the command sends it again under its Idempotency-Key, waits while the first try still
// runs (409), and reports the counts of the one import that was applied, not a second one.
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { createMemoryStore } from "@catalog-kit/adapter-memory";
import { type CatalogStore, createCatalog } from "@catalog-kit/catalog-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type CatalogServer, productLine, SITE, startCatalogServer } from "./support/catalog-server.ts";
import { runCli } from "./support/run-cli.ts";

let server: CatalogServer;
let commits = 0;

// A store whose commits take 1.5 s: the first try still holds its key when the retry comes.
function slowStore(): CatalogStore {
  const inner = createMemoryStore();
  return {
    ...inner,
    async beginImport(site, options) {
      const staged = await inner.beginImport(site, options);
      return {
        ...staged,
        async commit(key) {
          await sleep(1_500);
          commits++;
          return staged.commit(key);
        },
      };
    },
  };
}

beforeAll(async () => {
  server = await startCatalogServer({}, 0, createCatalog({ store: slowStore(), sites: [SITE] }));
});
afterAll(async () => {
  await server?.close();
});

it("a lost connection after the body was sent: retried under its key, applied once, its own counts reported", async () => {
  const file = join(server.dir, "two.ndjson");
  await writeFile(file, `${productLine("once-1")}\n${productLine("once-2")}\n`);
  // The real handler runs the import; the connection goes as soon as the body is in.
  server.hooks.push((req) => {
    req.on("end", () => req.socket.destroy());
    return false;
  });
  const { code, stderr } = await runCli(["import", file, ...server.connect, "--idempotency-key", "exactly-once-1"]);
  expect(stderr).toMatch(/Connection lost/);
  expect(stderr).toMatch(/409 from the server: an earlier try of this import still runs/);
  expect(stderr).toContain("Idempotent-Replayed");
  expect(stderr).toMatch(/2 created/);
  expect(code).toBe(0);
  expect(commits).toBe(1);
  expect((await server.catalog.getProduct(SITE, "once-2")).id).toBe("once-2");
});
