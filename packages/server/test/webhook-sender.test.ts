// The webhook sender against a local target: signatures the Standard Webhooks reference library
// verifies (each of two secrets), retries with the same webhook-id, Retry-After, 410, bounded
// timeouts, the deadline, and a name that resolves to loopback refused unless allowPrivate.
import { createMemoryStore } from "@catalog-kit/adapter-memory";
import type { CatalogStore, ImportRecord } from "@catalog-kit/catalog-core";
import { Webhook } from "standardwebhooks";
import { afterEach, describe, expect, it } from "vitest";
import { webhookDeliveries } from "../src/webhooks/deliveries.ts";
import { type DeliveryOutcome, startWebhookSender, type WebhookSender } from "../src/webhooks/sender.ts";
import { WEBHOOK_DELIVERY_DEFAULTS, type WebhookSettings } from "../src/webhooks/webhook-config.ts";
import {
  type Answer,
  endedRecord,
  type Received,
  SECRETS,
  startTarget,
  type WebhookTarget,
} from "./support/webhook-target.ts";

const SITE = { siteId: "shop-1", siteType: "shopify" };
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
});

interface Running {
  readonly store: CatalogStore;
  readonly target: WebhookTarget;
  readonly sender: WebhookSender;
  readonly logs: Record<string, unknown>[];
  readonly outcomes: DeliveryOutcome[];
  enqueue(record?: ImportRecord): Promise<string[]>;
  /** Resolves once `count` outcomes were counted. */
  outcome(count: number): Promise<DeliveryOutcome[]>;
}

async function run(
  answer: (n: number) => Answer,
  options: { url?: (target: WebhookTarget) => string; allowPrivate?: boolean; delivery?: object } = {},
): Promise<Running> {
  const target = await startTarget(answer);
  const store = createMemoryStore();
  const url = options.url?.(target) ?? target.url;
  const settings: WebhookSettings = {
    webhooks: [{ url, secrets: [...SECRETS], events: ["import.succeeded", "import.failed"], sites: [SITE] }],
    webhookTargets: { allowPrivate: options.allowPrivate ?? true },
    webhookDelivery: {
      ...WEBHOOK_DELIVERY_DEFAULTS,
      pollMs: 20,
      retryBaseMs: 50,
      timeoutMs: 1_000,
      ...options.delivery,
    },
  };
  const logs: Record<string, unknown>[] = [];
  const outcomes: DeliveryOutcome[] = [];
  const waiters = new Set<() => void>();
  const sender = startWebhookSender({
    store,
    settings,
    log: (fields) => logs.push(fields),
    count: (outcome) => {
      outcomes.push(outcome);
      for (const waiter of waiters) waiter();
    },
  });
  cleanups.push(async () => {
    await sender.close();
    await target.close();
  });
  let n = 0;
  return {
    store,
    target,
    sender,
    logs,
    outcomes,
    async enqueue(record = endedRecord()) {
      const deliveries = webhookDeliveries(settings.webhooks, record);
      await store.saveImport(SITE, { id: `r${n++}`, value: JSON.stringify(record) }, { deliveries });
      return deliveries.map((delivery) => delivery.id);
    },
    outcome: (count) =>
      new Promise((resolve, reject) => {
        const check = () => {
          if (outcomes.length < count) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(outcomes.slice(0, count));
        };
        const timer = setTimeout(() => reject(new Error(`outcomes so far: ${outcomes.join(", ")}`)), 10_000);
        waiters.add(check);
        check();
      }),
  };
}

function headersOf(received: Received): Record<string, string> {
  return Object.fromEntries(Object.entries(received.headers).map(([name, value]) => [name, String(value)]));
}

// The reference library's verification, which throws on a bad or missing signature.
function verify(secret: string, received: Received): unknown {
  return new Webhook(secret).verify(received.body, headersOf(received));
}

describe("the webhook sender", () => {
  it("signs each message so that the reference library verifies it under each configured secret", async () => {
    const hook = await run(() => ({ status: 204 }));
    const record = endedRecord({ state: "failed", error: { code: "VALIDATION_FAILED", message: "bad rows" } });
    const [id] = await hook.enqueue(record);
    const [received] = (await hook.target.waitFor(1)) as [Received];
    for (const secret of SECRETS) {
      expect(verify(secret, received)).toEqual({
        type: "import.failed",
        timestamp: record.endedAt,
        data: { ...record, problems: undefined },
      });
    }
    const { problems: _problems, ...data } = record;
    expect(JSON.parse(received.body)).toEqual({ type: "import.failed", timestamp: record.endedAt, data });
    expect(received.headers["webhook-id"]).toBe(id);
    expect(String(received.headers["webhook-signature"]).split(" ")).toHaveLength(2);
    // One secret alone, and a wrong one: each signature stands on its own, and a forgery fails.
    for (const secret of SECRETS) {
      const signatures = String(received.headers["webhook-signature"]).split(" ");
      const alone = {
        ...received,
        headers: { ...received.headers, "webhook-signature": signatures[SECRETS.indexOf(secret)] },
      };
      expect(() => verify(secret, alone)).not.toThrow();
    }
    expect(() => verify(`whsec_${Buffer.alloc(24, 9).toString("base64")}`, received)).toThrow();
    expect(() => verify(SECRETS[0], { ...received, body: received.body.replace("failed", "succeeded") })).toThrow();
    expect(await hook.outcome(1)).toEqual(["delivered"]);
    expect(await hook.store.claimDeliveries(Date.now() + 86_400_000, 1_000, 10)).toEqual([]);
  });

  it("tries a 500 again, with the same webhook-id, until a 2xx", async () => {
    const hook = await run((n) => ({ status: n === 0 ? 500 : 200 }));
    const [id] = await hook.enqueue();
    const received = await hook.target.waitFor(2);
    expect(received.map((one) => one.headers["webhook-id"])).toEqual([id, id]);
    for (const one of received) expect(() => verify(SECRETS[1], one)).not.toThrow();
    expect(await hook.outcome(2)).toEqual(["retried", "delivered"]);
    expect(hook.logs[0]).toMatchObject({ event: "webhook_retry", webhookId: id, status: 500, attempts: 1 });
  });

  it("honours Retry-After: the next try waits as long as the target asked", async () => {
    const hook = await run((n) => (n === 0 ? { status: 503, headers: { "retry-after": "1" } } : { status: 200 }));
    await hook.enqueue();
    const [first, second] = (await hook.target.waitFor(2)) as [Received, Received];
    // The backoff alone would have waited 25 to 50 ms.
    expect(second.at - first.at).toBeGreaterThanOrEqual(950);
    expect(second.headers["webhook-id"]).toBe(first.headers["webhook-id"]);
    expect(await hook.outcome(2)).toEqual(["retried", "delivered"]);
  });

  it("disables an endpoint that answers 410: its later deliveries are dropped unsent, logged and counted", async () => {
    const hook = await run(() => ({ status: 410 }));
    await hook.enqueue();
    expect(await hook.outcome(1)).toEqual(["disabled"]);
    expect(hook.logs[0]).toMatchObject({ event: "webhook_disabled", status: 410 });
    await hook.enqueue();
    expect(await hook.outcome(2)).toEqual(["disabled", "dropped"]);
    expect(hook.target.received).toHaveLength(1);
    expect(await hook.store.claimDeliveries(Date.now() + 86_400_000, 1_000, 10)).toEqual([]);
  });

  it("bounds a try by timeoutMs: a stalled target is given up on and tried again", async () => {
    const hook = await run((n) => (n === 0 ? "stall" : { status: 200 }), { delivery: { timeoutMs: 300 } });
    await hook.enqueue();
    const [first, second] = (await hook.target.waitFor(2)) as [Received, Received];
    expect(second.at - first.at).toBeGreaterThanOrEqual(290);
    expect(second.at - first.at).toBeLessThan(2_000);
    expect(await hook.outcome(2)).toEqual(["retried", "delivered"]);
    expect(hook.logs[0]).toMatchObject({ event: "webhook_retry", error: { message: "No answer within 300 ms" } });
  });

  it("gives a delivery up maxAgeMs after its first try, logged and counted as expired", async () => {
    const hook = await run(() => ({ status: 500 }), {
      delivery: { maxAgeMs: 1_000, retryBaseMs: 100, retryMaxMs: 200 },
    });
    await hook.enqueue();
    await expect.poll(() => hook.outcomes.at(-1), { timeout: 5_000 }).toBe("expired");
    const tries = hook.target.received;
    const span = (tries.at(-1)?.at ?? 0) - (tries[0]?.at ?? 0);
    expect(span).toBeGreaterThanOrEqual(950);
    expect(span).toBeLessThan(2_500);
    expect(hook.logs.at(-1)).toMatchObject({ event: "webhook_expired", attempts: tries.length });
    expect(await hook.store.claimDeliveries(Date.now() + 86_400_000, 1_000, 10)).toEqual([]);
  });

  it("refuses a name that resolves to loopback unless allowPrivate: nothing is sent, the try fails", async () => {
    const refused = await run(() => ({ status: 200 }), {
      url: (target) => `http://localhost:${target.port}/hooks`,
      allowPrivate: false,
    });
    await refused.enqueue();
    expect(await refused.outcome(1)).toEqual(["retried"]);
    expect(refused.logs[0]).toMatchObject({ event: "webhook_retry", error: { name: "PrivateAddressError" } });
    expect((refused.logs[0] as { error: { message: string } }).error.message).toMatch(
      /^localhost resolves to (127\.0\.0\.1|::1) \(loopback\)/,
    );
    expect(refused.target.received).toEqual([]);

    const allowed = await run(() => ({ status: 200 }), { url: (target) => `http://localhost:${target.port}/hooks` });
    await allowed.enqueue();
    expect(await allowed.outcome(1)).toEqual(["delivered"]);
  });

  it("drops a delivery whose endpoint is no longer configured, unsent", async () => {
    const hook = await run(() => ({ status: 200 }));
    const value = { url: "https://gone.example/hooks", type: "import.succeeded", body: "{}", attempts: 0 };
    await hook.store.saveImport(
      SITE,
      { id: "r", value: "{}" },
      { deliveries: [{ id: "msg_gone", dueAt: 0, value: JSON.stringify(value) }] },
    );
    expect(await hook.outcome(1)).toEqual(["dropped"]);
    expect(hook.logs[0]).toMatchObject({
      event: "webhook_dropped",
      webhookId: "msg_gone",
      url: "https://gone.example/hooks",
    });
    expect(JSON.stringify(hook.logs)).not.toContain("whsec_");
    const unreadable = [{ id: "msg_bad", dueAt: 0, value: JSON.stringify({ ...value, url: "not a url" }) }];
    await hook.store.saveImport(SITE, { id: "r2", value: "{}" }, { deliveries: unreadable });
    expect(await hook.outcome(2)).toEqual(["dropped", "dropped"]);
    expect(hook.logs[1]).toMatchObject({ event: "webhook_dropped", webhookId: "msg_bad" });
  });

  it("abandons a send in flight when it stops: the delivery stays queued, same id, for the next lease", async () => {
    const hook = await run(() => "stall", { delivery: { timeoutMs: 5_000, leaseMs: 6_000 } });
    const [id] = await hook.enqueue();
    await hook.target.waitFor(1);
    const started = Date.now();
    await hook.sender.close();
    expect(Date.now() - started).toBeLessThan(500);
    expect(await hook.store.claimDeliveries(Date.now(), 6_000, 10)).toEqual([]);
    const later = await hook.store.claimDeliveries(Date.now() + 6_000, 6_000, 10);
    expect(later.map((delivery) => delivery.id)).toEqual([id]);
    expect(hook.outcomes).toEqual([]);
  });
});
