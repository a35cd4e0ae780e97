// catalog-kit imports: the import id printed by import, a site's history listed, one record shown,
// and a refused file's whole problem report saved, more than the answer's first 100 problems.
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CatalogServer, productLine, startCatalogServer } from "./support/catalog-server.ts";
import { runCli } from "./support/run-cli.ts";

let server: CatalogServer;

beforeAll(async () => {
  server = await startCatalogServer();
});
afterAll(async () => {
  await server?.close();
});

const idOf = (stderr: string) => /^Import (\w+)/m.exec(stderr)?.[1];

describe("catalog-kit imports", () => {
  it("lists the imports import printed the ids of, newest first, and shows one", async () => {
    const good = join(server.dir, "good.ndjson");
    await writeFile(good, `${productLine("a")}\n${productLine("b")}\n`);
    const first = await runCli(["import", good, ...server.connect]);
    expect(first.code).toBe(0);
    const firstId = idOf(first.stderr);
    expect(firstId).toMatch(/^\w+$/);
    const dry = await runCli(["import", good, "--dry-run", ...server.connect]);
    const dryId = idOf(dry.stderr);

    const listed = await runCli(["imports", "list", ...server.connect]);
    expect(listed.code).toBe(0);
    const lines = listed.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^id +started +state +body +mode +outcome$/);
    expect(lines[2]).toMatch(new RegExp(`^${dryId} +\\S+ +succeeded \\(dry run\\) +stream/ndjson +upsert +0 created`));
    expect(lines[3]).toMatch(new RegExp(`^${firstId} +\\S+ +succeeded +stream/ndjson +upsert +2 created, 0 updated`));

    const json = await runCli(["imports", "--json", "--limit", "1", ...server.connect]);
    expect(JSON.parse(json.stdout).map((r: { importId: string }) => r.importId)).toEqual([dryId]);

    const shown = await runCli(["imports", "show", firstId as string, ...server.connect]);
    expect(shown.code).toBe(0);
    expect(JSON.parse(shown.stdout)).toMatchObject({ importId: firstId, state: "succeeded", productsRead: 2 });
  });

  it("saves a refused file's whole problem report, as CSV or NDJSON", async () => {
    const bad = join(server.dir, "bad.ndjson");
    // 150 products without a title: 150 problems, of which the answer lists 100.
    const lines = Array.from({ length: 150 }, (_, i) => productLine(`p${i}`, { title: "" }));
    await writeFile(bad, `${lines.join("\n")}\n`);
    const refused = await runCli(["import", bad, ...server.connect]);
    expect(refused.code).toBe(1);
    const id = idOf(refused.stderr) as string;
    expect(refused.stderr).toContain(`catalog-kit imports problems ${id}`);

    const file = join(server.dir, "problems.csv");
    const saved = await runCli(["imports", "problems", id, "-o", file, ...server.connect]);
    expect(saved.code).toBe(0);
    expect(saved.stderr).toBe(`Saved the problem report of ${id} (150 problems) to ${file}\n`);
    const csv = (await readFile(file, "utf8")).trimEnd().split(/\r?\n/);
    expect(csv).toHaveLength(151);

    const ndjson = await runCli(["imports", "problems", id, "--format", "ndjson", ...server.connect]);
    const problems = ndjson.stdout
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(problems).toHaveLength(150);
    expect(problems[149]).toMatchObject({ line: 150, pointer: "/title" });
  });

  it("prints the server's problem for an unknown import, and a usage error when called wrong", async () => {
    const unknown = await runCli(["imports", "show", "0000000000000000000000000000", ...server.connect]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/^404 IMPORT_NOT_FOUND/);
    const missing = await runCli(["imports", "problems", "0000000000000000000000000000", "-o", "x", ...server.connect]);
    expect(missing.code).toBe(1);
    expect((await runCli(["imports", "show", ...server.connect])).code).toBe(2);
    expect((await runCli(["imports", "rename", ...server.connect])).code).toBe(2);
    expect((await runCli(["imports", "problems", "x", "--format", "xml", ...server.connect])).code).toBe(2);
  });
});
