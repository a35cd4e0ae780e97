// An import over HTTP to `catalog-kit serve`, and its webhook: the import's record, signed as
// the reference library verifies, for a success and a failure; a dry run, or a site no webhook
// covers, told to nobody.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { type CliProcess, startCli, stopCli } from "@catalog-kit/test-support/http";
import { Webhook } from "standardwebhooks";
import { afterAll, afterEach, expect, it } from "vitest";
import { SECRETS, startTarget, type WebhookTarget } from "./support/webhook-target.ts";

const dir = await mkdtemp(join(tmpdir(), "catalog-webhooks-e2e-"));
let server: CliProcess | undefined;
let target: WebhookTarget | undefined;
afterEach(async () => {
  if (server !== undefined) await stopCli(server);
  await target?.close();
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const SITE = { siteId: "shop-1", siteType: "shopify" };
const product = {
  id: "p1",
  sku: "P-1",
  title: "Mug",
  available: true,
  featured_image: "https://i/p",
  url: "https://u/p",
};

it("an import's end is POSTed to the configured webhook, signed, with the import's record", async () => {
  target = await startTarget();
  const file = join(dir, "config.json");
  await writeFile(
    file,
    JSON.stringify({
      sites: [SITE, { siteId: "other", siteType: "shopify" }],
      tokens: [{ token: "t", sites: "*", name: "feed" }],
      storage: { adapter: "memory" },
      webhooks: [{ url: target.url, secrets: [...SECRETS], sites: [SITE] }],
      webhookTargets: { allowPrivate: true },
      webhookDelivery: { pollMs: 50 },
    }),
  );
  server = startCli({ CATALOG_CONFIG: file, ACCESS_LOG: "off" });
  const url = /listening on (http:\S+)/.exec(await server.waitForOutput(/listening on (http:\S+)/))?.[1] as string;
  const post = async (query: string, body: object) => {
    const answer = await fetch(`${url}/external/product/v1/bulk${query}`, {
      method: "POST",
      headers: { "x-service-access-token": "t", "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    return answer.status;
  };

  // Neither a dry run nor a site no webhook covers is told.
  expect(await post("?dryRun=true", { ...SITE, products: [product] })).toBe(200);
  expect(await post("", { siteId: "other", siteType: "shopify", products: [product] })).toBe(200);
  expect(await post("", { ...SITE, products: [product] })).toBe(200);
  expect(await post("", { ...SITE, products: [{ ...product, title: 7 }] })).toBe(400);

  const received = await target.waitFor(2);
  const events = received.map((one) => {
    const headers = Object.fromEntries(Object.entries(one.headers).map(([name, value]) => [name, String(value)]));
    for (const secret of SECRETS) expect(() => new Webhook(secret).verify(one.body, headers)).not.toThrow();
    return JSON.parse(one.body) as { type: string; data: Record<string, unknown> };
  });
  const byType = Object.fromEntries(events.map((event) => [event.type, event.data]));
  expect(byType["import.succeeded"]).toMatchObject({
    ...SITE,
    state: "succeeded",
    dryRun: false,
    counts: { total: 1, created: 1 },
  });
  expect(byType["import.failed"]).toMatchObject({ ...SITE, state: "failed", problemCount: 1 });
  // Two imports, two records: each its own id, as its site's history keeps it.
  const ids = Object.values(byType).map((data) => data.importId);
  expect(ids.every((id) => typeof id === "string" && /^[A-Za-z0-9]{1,64}$/.test(id))).toBe(true);
  expect(new Set(ids).size).toBe(2);
  for (const data of Object.values(byType)) expect(data).not.toHaveProperty("problems");
  await sleep(300);
  expect(target.received).toHaveLength(2);
}, 30_000);
