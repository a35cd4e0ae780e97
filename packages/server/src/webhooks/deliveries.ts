// The deliveries an ended import enqueues, one per configured endpoint whose sites and events
// match, and the JSON each keeps in the store's queue. Never a secret: the sender finds the
// endpoint's secrets by its url in the configuration in force when it sends.
import { randomBytes } from "node:crypto";
import { type Delivery, type ImportRecord, type Site, siteKey } from "@catalog-kit/catalog-core";
import * as v from "valibot";
import { WEBHOOK_EVENTS, type WebhookConfig, type WebhookEvent } from "./webhook-config.ts";

const Time = v.pipe(v.number(), v.safeInteger(), v.minValue(0));

/**
 * A queued delivery's value: where it goes, what it says (`body`, the exact bytes signed and
 * sent, the same on every try), how many tries failed, and when the first was made.
 */
export const DeliveryValueSchema = v.object({
  url: v.pipe(
    v.string(),
    v.check((url) => URL.canParse(url)),
  ),
  type: v.picklist(WEBHOOK_EVENTS),
  body: v.string(),
  attempts: Time,
  firstAttemptAt: v.optional(Time),
});

/** A queued delivery's value, see `DeliveryValueSchema`. */
export type DeliveryValue = v.InferOutput<typeof DeliveryValueSchema>;

/** The event an import's record ends with; `undefined` while it runs. */
export function importEvent(record: ImportRecord): WebhookEvent | undefined {
  if (record.state === "succeeded") return "import.succeeded";
  if (record.state === "failed") return "import.failed";
  return undefined;
}

function covers(sites: WebhookConfig["sites"], site: Site): boolean {
  return sites === "*" || sites.some((one) => siteKey(one) === siteKey(site));
}

/** A fresh webhook-id: `msg_` and 128 random bits, the id of every try of one delivery. */
export function messageId(): string {
  return `msg_${randomBytes(16).toString("base64url")}`;
}

/**
 * The deliveries of an ended import's record, due at `now`: one per endpoint covering its site
 * and event. The body is a Standard Webhooks envelope `{ type, timestamp, data }`, `data` the
 * record without its problems (`problemCount` tells how many; the report is downloaded apart).
 * A dry run changed nothing and a replay applied nothing again: neither is told.
 */
export function webhookDeliveries(
  webhooks: readonly WebhookConfig[],
  record: ImportRecord,
  now: number = Date.now(),
): Delivery[] {
  const type = importEvent(record);
  if (type === undefined || record.dryRun || record.replayed === true) return [];
  const { problems: _problems, ...data } = record;
  const timestamp = record.endedAt ?? new Date(now).toISOString();
  const body = JSON.stringify({ type, timestamp, data });
  return webhooks
    .filter((webhook) => webhook.events.includes(type) && covers(webhook.sites, record))
    .map((webhook) => {
      const value: DeliveryValue = { url: webhook.url, type, body, attempts: 0 };
      return { id: messageId(), dueAt: now, value: JSON.stringify(value) };
    });
}

/** A queued value read back; `undefined` when it is not one this server wrote. */
export function readDeliveryValue(text: string): DeliveryValue | undefined {
  try {
    const result = v.safeParse(DeliveryValueSchema, JSON.parse(text));
    return result.success ? result.output : undefined;
  } catch {
    return undefined;
  }
}
