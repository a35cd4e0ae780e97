// The worker that makes the queued deliveries: every `pollMs` it leases the due ones from the
// store (so that one server sends each while its lease holds, whichever enqueued it), signs and
// sends each, and settles it: removed once answered 2xx or given up, else due again later.
import type { CatalogStore, ClaimedDelivery } from "@catalog-kit/catalog-core";
import { type DeliveryValue, readDeliveryValue } from "./deliveries.ts";
import { postWebhook } from "./post.ts";
import { backoffMs, retryAfterMs } from "./retry.ts";
import { webhookHeaders } from "./signature.ts";
import type { WebhookConfig, WebhookSettings } from "./webhook-config.ts";

/** What became of one try: sent (2xx), to be tried again, out of time, its endpoint gone (410), or dropped unsent. */
export const DELIVERY_OUTCOMES = ["delivered", "retried", "expired", "disabled", "dropped"] as const;

/** One of `DELIVERY_OUTCOMES`. */
export type DeliveryOutcome = (typeof DELIVERY_OUTCOMES)[number];

/** What the sender needs: the store, the configuration in force, and where it tells what it did. */
export interface WebhookSenderOptions {
  readonly store: CatalogStore;
  readonly settings: WebhookSettings;
  /** Counts each try's outcome (the metrics). */
  readonly count?: (outcome: DeliveryOutcome) => void;
  /** Writes one log line's fields (a JSON line on stderr in the server). */
  readonly log: (fields: Record<string, unknown>) => void;
  /** A failure of the store: the lease lapses and the delivery is tried again. */
  readonly onError?: (error: unknown) => void;
  readonly now?: () => number;
}

/** A running sender. */
export interface WebhookSender {
  /** Stops polling and abandons the sends in flight (their leases lapse: they are sent again later, same id). */
  close(): Promise<void>;
}

// Why a try failed, as its log line tells it: the target's answer, or the error that ended it.
type Failure =
  | { readonly status: number; readonly retryAfter?: string }
  | { readonly error: { readonly name: string; readonly message: string } };

// Sends at once per process: a stalled target holds one of them for `timeoutMs` at most.
const MAX_IN_FLIGHT = 16;

// An endpoint as a log line names it: never its query string, which may carry a receiver's token.
function endpointName(url: string): string {
  const { origin, pathname } = new URL(url);
  return origin + pathname;
}

/** Starts the sender; with no webhook configured it still drains what an earlier configuration queued. */
export function startWebhookSender(options: WebhookSenderOptions): WebhookSender {
  const { store, settings, log, count = () => {}, onError = () => {}, now = Date.now } = options;
  const delivery = settings.webhookDelivery;
  const endpoints = new Map<string, WebhookConfig>(settings.webhooks.map((hook) => [new URL(hook.url).href, hook]));
  // 410 Gone: the receiver asks to be told no more. Until a restart, as the configuration still names it.
  const disabled = new Set<string>();
  const stopping = new AbortController();
  const inFlight = new Set<Promise<void>>();
  let timer: NodeJS.Timeout | undefined;
  let polling: Promise<void> | undefined;

  const settle = (claimed: ClaimedDelivery, next?: { dueAt: number; value: string }) =>
    store.settleDelivery(claimed.id, claimed.lease, next).catch(onError);

  const drop = async (claimed: ClaimedDelivery, outcome: DeliveryOutcome, fields: Record<string, unknown>) => {
    await settle(claimed);
    count(outcome);
    log({ level: "warn", webhookId: claimed.id, ...fields });
  };

  async function retry(claimed: ClaimedDelivery, value: DeliveryValue, firstAttemptAt: number, failure: Failure) {
    const attempts = value.attempts + 1;
    const time = now();
    const deadline = firstAttemptAt + delivery.maxAgeMs;
    const asked = "status" in failure ? retryAfterMs(failure.retryAfter, time) : undefined;
    const wait = asked ?? backoffMs(attempts, delivery);
    const url = endpointName(value.url);
    // Past the deadline, or asked to wait beyond it: given up. A backoff beyond it is cut to one last try there.
    if (time >= deadline || (asked !== undefined && time + wait > deadline)) {
      await drop(claimed, "expired", {
        event: "webhook_expired",
        message: `Webhook to ${url} given up after ${attempts} tries over ${Math.round((time - firstAttemptAt) / 1000)} s`,
        url,
        attempts,
        ...failure,
      });
      return;
    }
    const dueAt = Math.min(time + wait, deadline);
    const next: DeliveryValue = { ...value, attempts, firstAttemptAt };
    await settle(claimed, { dueAt, value: JSON.stringify(next) });
    count("retried");
    log({
      level: "warn",
      event: "webhook_retry",
      message: `Webhook to ${url} failed (try ${attempts}); tried again in ${Math.round((dueAt - time) / 1000)} s`,
      webhookId: claimed.id,
      url,
      attempts,
      retryInMs: dueAt - time,
      ...failure,
    });
  }

  async function deliver(claimed: ClaimedDelivery): Promise<void> {
    const value = readDeliveryValue(claimed.value);
    if (value === undefined) {
      await drop(claimed, "dropped", {
        event: "webhook_dropped",
        message: "A queued delivery this server cannot read: dropped",
      });
      return;
    }
    const key = new URL(value.url).href;
    const endpoint = endpoints.get(key);
    if (endpoint === undefined || disabled.has(key)) {
      const why = endpoint === undefined ? "is no longer configured" : "answered 410 Gone earlier";
      const url = endpointName(value.url);
      await drop(claimed, "dropped", {
        event: "webhook_dropped",
        message: `Webhook to ${url} dropped: the endpoint ${why}`,
        url,
      });
      return;
    }
    const startedAt = now();
    const firstAttemptAt = value.firstAttemptAt ?? startedAt;
    // The signature's time is each try's own: a receiver refuses a message signed too long ago.
    const headers = webhookHeaders(endpoint.secrets, claimed.id, Math.floor(startedAt / 1000), value.body);
    const outcome = await postWebhook(value.url, headers, value.body, {
      timeoutMs: delivery.timeoutMs,
      allowPrivate: settings.webhookTargets.allowPrivate,
      signal: stopping.signal,
    });
    // Abandoned as the server stops: the lease lapses and a server sends it again, with the same id.
    if (stopping.signal.aborted && "error" in outcome) return;
    if ("error" in outcome) {
      const { name, message } = outcome.error;
      await retry(claimed, value, firstAttemptAt, { error: { name, message } });
    } else if (outcome.status >= 200 && outcome.status <= 299) {
      await settle(claimed);
      count("delivered");
    } else if (outcome.status === 410) {
      disabled.add(key);
      const url = endpointName(value.url);
      await drop(claimed, "disabled", {
        event: "webhook_disabled",
        message: `Webhook endpoint ${url} answered 410 Gone: disabled until the server restarts; remove it from the configuration`,
        url,
        status: 410,
      });
    } else {
      await retry(claimed, value, firstAttemptAt, {
        status: outcome.status,
        ...(outcome.retryAfter === undefined ? {} : { retryAfter: outcome.retryAfter }),
      });
    }
  }

  async function poll(): Promise<void> {
    const room = MAX_IN_FLIGHT - inFlight.size;
    if (room > 0) {
      let claimed: ClaimedDelivery[] = [];
      try {
        claimed = await store.claimDeliveries(now(), delivery.leaseMs, room);
      } catch (error) {
        onError(error);
      }
      for (const one of claimed) {
        const sending: Promise<void> = deliver(one)
          .catch(onError)
          .finally(() => inFlight.delete(sending));
        inFlight.add(sending);
      }
    }
    if (!stopping.signal.aborted) timer = setTimeout(tick, delivery.pollMs);
  }
  function tick() {
    polling = poll();
  }
  tick();

  return {
    async close() {
      if (stopping.signal.aborted) return;
      stopping.abort();
      clearTimeout(timer);
      await polling;
      clearTimeout(timer);
      await Promise.allSettled([...inFlight]);
    },
  };
}
