// The configuration's `history`: its defaults (the core's), located errors, `false` with no
// webhooks, and a configured retention in force through the running server.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HISTORY_DEFAULTS } from "@catalog-kit/catalog-core";
import { type CliProcess, startCli, stopCli } from "@catalog-kit/test-support/http";
import fc from "fast-check";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { parseConfig } from "../src/config.ts";
import { HISTORY_MAX } from "../src/history-config.ts";
import { configIssues } from "./support/config-issues.ts";
import { SECRETS } from "./support/webhook-target.ts";

const SITE = { siteId: "shop-1", siteType: "shopify" };
const base = { sites: [SITE], tokens: [{ token: "t", sites: "*" }], storage: { adapter: "memory" } };

const issuesOf = (input: object) => configIssues({ ...base, ...input });

describe("the history's configuration", () => {
  it("defaults to the core's retention and report cap, each key alone, and takes false", () => {
    expect(parseConfig(base).history).toEqual(HISTORY_DEFAULTS);
    expect(parseConfig({ ...base, history: {} }).history).toEqual(HISTORY_DEFAULTS);
    expect(parseConfig({ ...base, history: { keep: 2 } }).history).toEqual({ ...HISTORY_DEFAULTS, keep: 2 });
    expect(parseConfig({ ...base, history: false }).history).toBe(false);
  });

  it("keeps any whole numbers in range as written", () => {
    const whole = (max: number) => fc.integer({ min: 1, max });
    fc.assert(
      fc.property(
        fc.record(
          {
            keep: whole(HISTORY_MAX.keep),
            maxAgeMs: whole(Number.MAX_SAFE_INTEGER),
            maxReportProblems: whole(HISTORY_MAX.maxReportProblems),
          },
          { requiredKeys: [] },
        ),
        (history) => {
          expect(parseConfig({ ...base, history }).history).toEqual({ ...HISTORY_DEFAULTS, ...history });
        },
      ),
    );
  });

  it("names any value out of range or not whole at its own key", () => {
    const bad = fc.oneof(
      fc.integer({ max: 0 }),
      fc.double({ min: 1.01, max: 1e6, noNaN: true }).filter((n) => !Number.isInteger(n)),
      fc.constantFrom("10", null, true, Number.NaN),
    );
    fc.assert(
      fc.property(fc.constantFrom("keep", "maxAgeMs", "maxReportProblems"), bad, (key, value) => {
        const issues = issuesOf({ history: { [key]: value } });
        expect(issues).toHaveLength(1);
        expect(issues[0]).toMatch(new RegExp(`^history\\.${key}: Must `));
      }),
    );
  });

  it("names an unknown key, a number past its bound, and a value that is neither false nor an object", () => {
    expect(issuesOf({ history: { kep: 5, maxReportProblems: HISTORY_MAX.maxReportProblems + 1 } })).toEqual([
      "history.maxReportProblems: Must be at most 1000000",
      "history.kep: Unknown key",
    ]);
    expect(issuesOf({ history: { keep: HISTORY_MAX.keep + 1 } })).toEqual(["history.keep: Must be at most 1000000"]);
    const shape = 'history: Must be false, or { "keep"?: number, "maxAgeMs"?: number, "maxReportProblems"?: number }';
    for (const history of [true, "off", 0, null, [], [{ keep: 1 }]]) expect(issuesOf({ history })).toEqual([shape]);
  });

  it("refuses no history beside webhooks, whose deliveries are enqueued with its records", () => {
    const webhooks = [{ url: "https://erp.example/hooks", secrets: [SECRETS[0]], sites: "*" }];
    expect(issuesOf({ history: false, webhooks })).toEqual([
      'history: Must not be false while "webhooks" are configured: their deliveries are sent from its records',
    ]);
    expect(parseConfig({ ...base, history: { keep: 1 }, webhooks }).history).toMatchObject({ keep: 1 });
  });
});

describe("the history's configuration, in the running server", () => {
  const dirs: string[] = [];
  let server: CliProcess | undefined;
  afterEach(async () => {
    if (server !== undefined) await stopCli(server);
    server = undefined;
  });
  afterAll(() => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))));

  async function serve(history: unknown) {
    const dir = await mkdtemp(join(tmpdir(), "catalog-history-config-"));
    dirs.push(dir);
    const file = join(dir, "config.json");
    await writeFile(file, JSON.stringify({ ...base, history }));
    server = startCli({ CATALOG_CONFIG: file, ACCESS_LOG: "off" });
    const url = /listening on (http:\S+)/.exec(await server.waitForOutput(/listening on (http:\S+)/))?.[1] as string;
    const headers = { "x-service-access-token": "t", "content-type": "application/json" };
    const product = (id: string) => ({
      id,
      sku: id,
      title: id,
      available: true,
      featured_image: "https://i/p",
      url: "https://u/p",
    });
    return {
      importOne: async (id: string) => {
        const body = JSON.stringify({ ...SITE, products: [product(id)] });
        const answer = await fetch(`${url}/external/product/v1/bulk`, { method: "POST", headers, body });
        expect(answer.status).toBe(200);
        return (await answer.json()) as { importId?: string };
      },
      list: async () => {
        const answer = await fetch(`${url}/external/product/v1/imports?siteId=shop-1&siteType=shopify`, { headers });
        expect(answer.status).toBe(200);
        return ((await answer.json()) as { imports: { importId: string }[] }).imports.map((one) => one.importId);
      },
    };
  }

  it("keeps the configured count of records a site: keep 2, three imports, the two newest listed", async () => {
    const { importOne, list } = await serve({ keep: 2 });
    const ids: (string | undefined)[] = [];
    for (const id of ["a", "b", "c"]) ids.push((await importOne(id)).importId);
    expect(ids.every((id) => typeof id === "string")).toBe(true);
    expect(await list()).toEqual([ids[2], ids[1]]);
  });

  it("records nothing with history false: no import id, an empty history", async () => {
    const { importOne, list } = await serve(false);
    const answer = await importOne("a");
    expect(answer).not.toHaveProperty("importId");
    expect(await list()).toEqual([]);
  });
});
