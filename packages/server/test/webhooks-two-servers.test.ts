// At least once across servers, as operators run them: two `catalog-kit serve` processes on one
// store (one SQLite file, one Redis, one PostgreSQL). Server A takes a delivery and its target stalls; A is killed (SIGKILL: nothing runs on
// the way out); server B, polling all along, leaves it alone while A's lease holds, then sends it
// with the same webhook-id, signed as the reference library verifies.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { type CliProcess, startCli, stopCli } from "@catalog-kit/test-support/http";
import {
  describeWithPostgres,
  describeWithRedis,
  FILE_TAG,
  sharedPostgres,
  sharedRedis,
} from "@catalog-kit/test-support/vitest";
import { Webhook } from "standardwebhooks";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { openStore } from "../src/open-store.ts";
import type { StorageConfig } from "../src/storage/load.ts";
import { webhookDeliveries } from "../src/webhooks/deliveries.ts";
import { endedRecord, SECRETS, startTarget, type WebhookTarget } from "./support/webhook-target.ts";

const dir = await mkdtemp(join(tmpdir(), "catalog-webhooks-shared-"));
const running: CliProcess[] = [];
let target: WebhookTarget | undefined;
afterEach(async () => {
  await Promise.all(running.splice(0).map(stopCli));
  await target?.close();
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const LEASE_MS = 3_000;
const SITE = { siteId: "shop-1", siteType: "shopify" };

async function serve(name: string, config: object): Promise<{ server: CliProcess; url: string }> {
  const file = join(dir, `${name}.json`);
  await writeFile(file, JSON.stringify(config));
  const server = startCli({ CATALOG_CONFIG: file, ACCESS_LOG: "off" });
  running.push(server);
  const url = /listening on (http:\S+)/.exec(await server.waitForOutput(/listening on (http:\S+)/))?.[1] as string;
  return { server, url };
}

function configFor(storage: object, url: string): object {
  return {
    sites: [SITE],
    tokens: [{ token: "t", sites: "*" }],
    storage,
    webhooks: [{ url, secrets: [...SECRETS], sites: "*" }],
    webhookTargets: { allowPrivate: true },
    webhookDelivery: { timeoutMs: 2_500, leaseMs: LEASE_MS, pollMs: 50 },
  };
}

// Enqueued as an import's end enqueues it: with its record, in the store the servers poll.
async function enqueue(storage: StorageConfig, url: string): Promise<string | undefined> {
  const store = await openStore(storage);
  const record = endedRecord();
  const hooks = [{ url, secrets: [...SECRETS], sites: "*" as const, events: ["import.succeeded" as const] }];
  const deliveries = webhookDeliveries(hooks, record);
  await store.saveImport(SITE, { id: "r1", value: JSON.stringify(record) }, { deliveries });
  await store.close();
  return deliveries[0]?.id;
}

function atLeastOnce(storageOf: (name: string) => Promise<StorageConfig>) {
  it("a server stopped by SIGTERM mid-send stops at once, and sends the delivery after its restart with the same webhook-id", async () => {
    target = await startTarget((n) => (n === 0 ? "stall" : { status: 200 }));
    const storage = await storageOf("restart");
    const config = configFor(storage, target.url);
    const a = await serve("restart-a", config);
    const id = await enqueue(storage, target.url);
    await target.waitFor(1);
    const stopping = performance.now();
    a.server.child.kill("SIGTERM");
    expect(await a.server.exited).toBe(0);
    // The stalled send is abandoned, not waited for (timeoutMs is 2.5 s).
    expect(performance.now() - stopping).toBeLessThan(2_000);
    expect(a.server.stdout()).toContain("Stopped");
    await serve("restart-a2", config);
    const [first, second] = await target.waitFor(2, 3 * LEASE_MS);
    expect([first?.headers["webhook-id"], second?.headers["webhook-id"]]).toEqual([id, id]);
  }, 30_000);

  it("a delivery held by a server killed mid-send is sent by the other once the lease lapses, with the same webhook-id", async () => {
    target = await startTarget((n) => (n === 0 ? "stall" : { status: 200 }));
    const storage = await storageOf("killed");
    const config = configFor(storage, target.url);
    const a = await serve("a", config);
    // A's lease starts after the delivery is enqueued and before its send reaches the target,
    // so the time since this moment is the bound B must wait out.
    const enqueuing = Date.now();
    const id = await enqueue(storage, target.url);
    const [first] = await target.waitFor(1);

    const b = await serve("b", config);
    a.server.child.kill("SIGKILL");
    expect(await a.server.exited).toBe("SIGKILL");
    const [, second] = await target.waitFor(2, 3 * LEASE_MS);
    expect([first?.headers["webhook-id"], second?.headers["webhook-id"]]).toEqual([id, id]);
    // B polled every 50 ms meanwhile and left the delivery to A's lease.
    expect((second?.at ?? 0) - enqueuing).toBeGreaterThanOrEqual(LEASE_MS - 100);
    for (const secret of SECRETS) {
      const headers = Object.fromEntries(Object.entries(second?.headers ?? {}).map(([k, v]) => [k, String(v)]));
      expect(new Webhook(secret).verify(second?.body ?? "", headers)).toMatchObject({ type: "import.succeeded" });
    }
    // Delivered once by B, and never again.
    await sleep(500);
    expect(target.received).toHaveLength(2);
    const metrics = await (await fetch(`${b.url}/metrics`)).text();
    expect(metrics).toMatch(/^catalog_webhook_deliveries_total\{outcome="delivered"\} 1$/m);
  }, 30_000);
}

describe("two servers on one SQLite file", () => {
  atLeastOnce(async (name) => ({ adapter: "sqlite", path: join(dir, `${name}.db`) }));
});

describeWithRedis("two servers on one Redis", () => {
  atLeastOnce(async (name) => ({ adapter: "redis", url: await sharedRedis(), keyPrefix: `${FILE_TAG}-${name}` }));
});

describeWithPostgres("two servers on one PostgreSQL", () => {
  atLeastOnce(async (name) => ({ adapter: "postgres", url: await sharedPostgres(), schema: `${FILE_TAG}_${name}` }));
});
