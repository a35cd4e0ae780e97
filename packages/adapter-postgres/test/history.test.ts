// The import history beyond the conformance suite: a record saved into a site with no row leaves
// the site's first import its own path (new-site.ts), a report of the contract's largest size
// comes back exactly, and stores saving and trimming one site at once keep the trim's bound.
import { createPostgresStore } from "@catalog-kit/adapter-postgres";
import { uniqueSite } from "@catalog-kit/catalog-core/testing";
import { describeWithPostgres, FILE_TAG, sharedPostgres } from "@catalog-kit/test-support/vitest";
import pg from "pg";
import { expect, test } from "vitest";
import { products } from "./support/fixtures.ts";

const idOf = (n: number) => `${n.toString(16).padStart(12, "0")}a`;

describeWithPostgres("PostgreSQL store: import history", () => {
  test("a record saved into a site with no row creates none: the site's first import still writes under a number of its own", async () => {
    const url = await sharedPostgres();
    const schema = `${FILE_TAG}_new_site`;
    const store = createPostgresStore({ url, schema, sweepIntervalMs: 0 });
    const admin = new pg.Pool({ connectionString: url });
    const site = uniqueSite();
    try {
      await store.saveImport(site, { id: idOf(1), value: '{"state":"receiving"}' });
      const rows = await admin.query(`SELECT 1 FROM "${schema}".sites WHERE site_type = $1 AND site_id = $2`, [
        site.siteType,
        site.siteId,
      ]);
      expect(rows.rowCount).toBe(0);
      const staged = await store.beginImport(site, { dryRun: false });
      await staged.add(
        products(0, 10, "first"),
        Array.from({ length: 10 }, (_, i) => i),
      );
      // Written before the commit under a number no site's row carries: the path of a new site.
      const unpublished = await admin.query(
        `SELECT count(*)::int AS n FROM "${schema}".products p
         WHERE NOT EXISTS (SELECT 1 FROM "${schema}".sites s WHERE s.site = p.site)`,
      );
      expect(unpublished.rows[0].n).toBe(10);
      expect(await staged.commit()).toEqual({ applied: true, counts: { created: 10, updated: 0, unchanged: 0 } });
      expect(await store.readImport(site, idOf(1))).toBe('{"state":"receiving"}');
    } finally {
      await admin.end();
      await store.close();
    }
  });

  test("a 16 MiB report comes back exactly, and stays when its record is saved again without it", async () => {
    const url = await sharedPostgres();
    const store = createPostgresStore({ url, schema: `${FILE_TAG}_report`, sweepIntervalMs: 0 });
    const site = uniqueSite();
    // Lines of one to four bytes a character, about 16 MiB of UTF-8 in all.
    const line = (i: number) => `{"row":${i},"message":"prix «${i}» 😀 \\"x\\" ${"z".repeat(60)}"}\n`;
    const lines: string[] = [];
    let bytes = 0;
    for (let i = 0; bytes < 16 * 1024 * 1024 - 200; i++) {
      const next = line(i);
      bytes += Buffer.byteLength(next);
      lines.push(next);
    }
    const report = lines.join("");
    try {
      await store.saveImport(site, { id: idOf(1), value: "ended" }, { problems: report });
      await store.saveImport(site, { id: idOf(1), value: "ended, saved again" });
      const read = await store.readImportProblems(site, idOf(1));
      expect(read?.length).toBe(report.length);
      expect(read === report).toBe(true);
      expect(await store.readImport(site, idOf(1))).toBe("ended, saved again");
    } finally {
      await store.close();
    }
  });

  test("two stores saving and trimming one site at once never fail, and the next trim leaves the bound", async () => {
    const url = await sharedPostgres();
    const schema = `${FILE_TAG}_racing`;
    const [one, other] = [createPostgresStore({ url, schema }), createPostgresStore({ url, schema })];
    const site = uniqueSite();
    const trim = { keep: 5, before: idOf(10) };
    try {
      await Promise.all(
        [one, other].map(async (store, k) => {
          for (let n = k; n < 120; n += 2) await store.saveImport(site, { id: idOf(n), value: `${n}` }, { trim });
        }),
      );
      await one.saveImport(site, { id: idOf(200), value: "last" }, { trim });
      const kept = await other.listImports(site, undefined, 1_000);
      expect(kept.map(({ id }) => id)).toEqual([200, 119, 118, 117, 116].map(idOf));
    } finally {
      await Promise.all([one.close(), other.close()]);
    }
  });
});
