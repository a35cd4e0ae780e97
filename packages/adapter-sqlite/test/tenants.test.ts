// The tenants registry and usage counters of two stores on one file, as two processes sharing it
// have them: each store has its own reading connection and writer thread, so one's write is seen
// by the other only through the file.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSqliteStore } from "@catalog-kit/adapter-sqlite";
import type { TenantEntries } from "@catalog-kit/catalog-core";
import { afterAll, expect, test } from "vitest";

const dir = mkdtempSync(join(tmpdir(), "catalog-sqlite-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function twoStores(name: string) {
  const path = join(dir, `${name}.db`);
  return [createSqliteStore({ path }), createSqliteStore({ path })] as const;
}

test("a write of one store is read by the other, which sees the version move", async () => {
  const [one, other] = twoStores("read");
  try {
    const before = (await other.readTenants()) as TenantEntries;
    expect(await other.readTenants(before.version)).toBeUndefined();
    expect(await one.writeTenant({ key: "site:a", value: '{"a":1}', when: "absent" })).toBe(true);
    const after = await other.readTenants(before.version);
    expect(after?.entries).toEqual([{ key: "site:a", value: '{"a":1}' }]);
    expect(await other.writeTenant({ key: "site:a", value: null, when: "present" })).toBe(true);
    expect(await one.readTenants(after?.version)).toEqual({ version: (after?.version ?? 0) + 1, entries: [] });
  } finally {
    await Promise.all([one.close(), other.close()]);
  }
});

test("of two stores creating one key at once, exactly one does; their counts add up", async () => {
  const [one, other] = twoStores("race");
  try {
    for (let round = 0; round < 20; round++) {
      const key = `token:${round}`;
      const answers = await Promise.all([
        one.writeTenant({ key, value: "one", when: "absent" }),
        other.writeTenant({ key, value: "other", when: "absent" }),
      ]);
      expect(answers.filter(Boolean)).toHaveLength(1);
    }
    const adds = Array.from({ length: 40 }, (_, i) =>
      (i % 2 ? one : other).countUsage([{ key: "u", amount: 1 }], 60_000),
    );
    const totals = (await Promise.all(adds)).map(([total]) => total as number);
    expect(totals.sort((l, r) => l - r)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
  } finally {
    await Promise.all([one.close(), other.close()]);
  }
});
