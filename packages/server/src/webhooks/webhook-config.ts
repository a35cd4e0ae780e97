// The configuration of signed webhooks: the endpoints (`webhooks`), which targets they may have
// (`webhookTargets`) and how deliveries are made (`webhookDelivery`). Checks a schema cannot make
// (a literal private address, a url given twice, a lease shorter than a send) are `webhookIssues`.
import { SiteSchema } from "@catalog-kit/catalog-core";
import * as v from "valibot";
import { addressRange, isPublicAddress, literalAddress } from "./address.ts";

/** The events a webhook can be told of: an import's end, one way or the other. */
export const WEBHOOK_EVENTS = ["import.succeeded", "import.failed"] as const;

/** One of `WEBHOOK_EVENTS`. */
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

// Standard Webhooks: `whsec_` and the base64 of 24 to 64 random bytes.
const SECRET_FORM = /^whsec_(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const Secret = v.pipe(
  v.string("Must be a string"),
  v.regex(SECRET_FORM, 'Must be "whsec_" followed by base64 (Standard Webhooks)'),
  v.check((secret) => {
    if (!SECRET_FORM.test(secret)) return true;
    const bytes = Buffer.from(secret.slice("whsec_".length), "base64").length;
    return bytes >= 24 && bytes <= 64;
  }, "Must hold 24 to 64 bytes once decoded from base64"),
);

// Each check passes what an earlier one refused: valibot runs them all, and one problem is told once.
const Url = v.pipe(
  v.string("Must be a string"),
  v.maxLength(2048, "Must be at most 2048 characters"),
  v.check((text) => URL.canParse(text), "Must be an absolute URL"),
  v.check((text) => {
    const protocol = URL.parse(text)?.protocol;
    return protocol === undefined || protocol === "https:" || protocol === "http:";
  }, "Must be an https:// or http:// URL"),
  // A password in the URL would be written into every log line that names the endpoint.
  v.check((text) => {
    const url = URL.parse(text);
    return url === null || (url.username === "" && url.password === "");
  }, "Must not hold a user name or password: the signature authenticates the sender"),
);

const Ms = (min: number, max: number) =>
  v.pipe(
    v.number("Must be a number"),
    v.safeInteger("Must be an integer"),
    v.minValue(min, `Must be at least ${min}`),
    v.maxValue(max, `Must be at most ${max}`),
  );

const WebhookSchema = v.strictObject({
  url: Url,
  // Several at once: each signs, so a receiver holding either verifies while a secret rotates.
  secrets: v.pipe(
    v.array(Secret),
    v.minLength(1, "Must list at least one secret"),
    v.maxLength(10, "Must list at most 10 secrets"),
  ),
  events: v.optional(
    v.pipe(
      v.array(v.picklist(WEBHOOK_EVENTS, `Must be one of ${WEBHOOK_EVENTS.join(", ")}`)),
      v.minLength(1, "Must list at least one event"),
    ),
    [...WEBHOOK_EVENTS],
  ),
  // Sites made at run time count too, so a site need not be in "sites".
  sites: v.union(
    [v.literal("*"), v.pipe(v.array(SiteSchema), v.minLength(1, "Must list at least one site"))],
    'Must be "*" or a list of sites',
  ),
});

/** One configured endpoint, defaults applied. */
export type WebhookConfig = v.InferOutput<typeof WebhookSchema>;

/** Defaults of `webhookDelivery`: 24 hours of retries, 10 s a send, leases of 30 s. */
export const WEBHOOK_DELIVERY_DEFAULTS = {
  maxAgeMs: 86_400_000,
  timeoutMs: 10_000,
  leaseMs: 30_000,
  pollMs: 500,
  retryBaseMs: 5_000,
  retryMaxMs: 3_600_000,
} as const;

const D = WEBHOOK_DELIVERY_DEFAULTS;

/** The configuration file's keys of webhooks, spread into the server's schema. */
export const WEBHOOK_CONFIG_ENTRIES = {
  webhooks: v.optional(v.array(WebhookSchema), []),
  webhookTargets: v.optional(
    v.strictObject({ allowPrivate: v.optional(v.boolean("Must be true or false"), false) }),
    {},
  ),
  webhookDelivery: v.optional(
    v.strictObject({
      maxAgeMs: v.optional(Ms(1_000, 7 * 86_400_000), D.maxAgeMs),
      timeoutMs: v.optional(Ms(100, 120_000), D.timeoutMs),
      leaseMs: v.optional(Ms(200, 600_000), D.leaseMs),
      pollMs: v.optional(Ms(10, 60_000), D.pollMs),
      retryBaseMs: v.optional(Ms(1, 3_600_000), D.retryBaseMs),
      retryMaxMs: v.optional(Ms(1, 86_400_000), D.retryMaxMs),
    }),
    {},
  ),
};

/** The webhook part of a validated configuration. */
export interface WebhookSettings {
  readonly webhooks: readonly WebhookConfig[];
  readonly webhookTargets: { readonly allowPrivate: boolean };
  readonly webhookDelivery: { readonly [K in keyof typeof WEBHOOK_DELIVERY_DEFAULTS]: number };
}

/**
 * What the schema cannot see, one line per problem at its key path: a target whose host is a
 * literal non-public address (unless `allowPrivate`), a url given twice (secrets are found by
 * url), and delivery times that contradict each other.
 */
export function webhookIssues(settings: WebhookSettings): string[] {
  const issues: string[] = [];
  const seen = new Set<string>();
  settings.webhooks.forEach(({ url }, w) => {
    const parsed = new URL(url);
    if (seen.has(parsed.href)) issues.push(`webhooks[${w}].url: Another webhook has this url`);
    seen.add(parsed.href);
    const address = literalAddress(parsed);
    if (address !== undefined && !settings.webhookTargets.allowPrivate && !isPublicAddress(address)) {
      issues.push(
        `webhooks[${w}].url: ${address} is a ${addressRange(address)} address, not a public one: refused unless webhookTargets.allowPrivate is true`,
      );
    }
  });
  const { timeoutMs, leaseMs, retryBaseMs, retryMaxMs } = settings.webhookDelivery;
  if (leaseMs <= timeoutMs) {
    issues.push(
      "webhookDelivery.leaseMs: Must be longer than webhookDelivery.timeoutMs, so that a send ends within its lease",
    );
  }
  if (retryMaxMs < retryBaseMs) issues.push("webhookDelivery.retryMaxMs: Must be at least webhookDelivery.retryBaseMs");
  return issues;
}
