// What an ended import enqueues: one delivery per endpoint whose sites and events match, with a
// fresh webhook-id, the record without its problems, and never a secret; nothing for a run that
// has not ended, a dry run or a replay.
import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { readDeliveryValue, webhookDeliveries } from "../src/webhooks/deliveries.ts";
import type { WebhookConfig } from "../src/webhooks/webhook-config.ts";
import { endedRecord, SECRETS } from "./support/webhook-target.ts";

const endpoint = (url: string, over: Partial<WebhookConfig> = {}): WebhookConfig => ({
  url,
  secrets: [...SECRETS],
  events: ["import.succeeded", "import.failed"],
  sites: "*",
  ...over,
});

describe("webhookDeliveries", () => {
  it("makes one delivery per matching endpoint, due now, its value the envelope of the record without problems", () => {
    const hooks = [
      endpoint("https://a.example/h"),
      endpoint("https://b.example/h", { sites: [{ siteId: "shop-1", siteType: "shopify" }] }),
      endpoint("https://c.example/h", { sites: [{ siteId: "shop-1", siteType: "woocommerce" }] }),
      endpoint("https://d.example/h", { events: ["import.failed"] }),
    ];
    const record = endedRecord();
    const deliveries = webhookDeliveries(hooks, record, 1_000);
    expect(deliveries.map((delivery) => readDeliveryValue(delivery.value)?.url)).toEqual([
      "https://a.example/h",
      "https://b.example/h",
    ]);
    const { problems: _problems, ...data } = record;
    for (const delivery of deliveries) {
      expect(delivery.dueAt).toBe(1_000);
      expect(delivery.id).toMatch(/^msg_[A-Za-z0-9_-]{22}$/);
      const value = readDeliveryValue(delivery.value);
      expect(value).toMatchObject({ type: "import.succeeded", attempts: 0 });
      expect(value?.firstAttemptAt).toBeUndefined();
      expect(JSON.parse(value?.body ?? "")).toEqual({ type: "import.succeeded", timestamp: record.endedAt, data });
    }
    expect(new Set(deliveries.map((delivery) => delivery.id)).size).toBe(2);
    expect(
      webhookDeliveries(hooks, endedRecord({ state: "failed" })).map((d) => readDeliveryValue(d.value)?.url),
    ).toEqual(["https://a.example/h", "https://b.example/h", "https://d.example/h"]);
  });

  it("makes none for an import still running, a dry run or a replay", () => {
    const hooks = [endpoint("https://a.example/h")];
    expect(webhookDeliveries(hooks, endedRecord({ state: "receiving" }))).toEqual([]);
    expect(webhookDeliveries(hooks, endedRecord({ state: "committing" }))).toEqual([]);
    expect(webhookDeliveries(hooks, endedRecord({ dryRun: true }))).toEqual([]);
    expect(webhookDeliveries(hooks, endedRecord({ replayed: true }))).toEqual([]);
  });

  test.prop([
    fc.uint8Array({ minLength: 24, maxLength: 64 }),
    fc.string(),
    fc.constantFrom("succeeded", "failed" as const),
  ])("never puts a secret in the store, whatever the record says", (bytes, text, state) => {
    const secret = `whsec_${Buffer.from(bytes).toString("base64")}`;
    const record = endedRecord({ state, tokenName: text, requestId: text, problems: [{ message: text }] });
    const [delivery] = webhookDeliveries([endpoint("https://a.example/h", { secrets: [secret] })], record);
    expect(delivery?.value).not.toContain(secret.slice("whsec_".length));
    expect(readDeliveryValue(delivery?.value ?? "")?.body).toBe(
      JSON.stringify({ type: `import.${state}`, timestamp: record.endedAt, data: { ...record, problems: undefined } }),
    );
  });
});
