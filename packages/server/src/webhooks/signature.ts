// Standard Webhooks 1.0 signatures, by node:crypto: `v1,` and the base64 HMAC-SHA256 of
// `id.timestamp.body` under the secret's bytes (the base64 after `whsec_`), one per secret,
// space-separated, so that a receiver holding any of them verifies while a secret rotates.
import { createHmac } from "node:crypto";

/** The bytes a `whsec_` secret stands for. */
export function secretKey(secret: string): Buffer {
  return Buffer.from(secret.startsWith("whsec_") ? secret.slice("whsec_".length) : secret, "base64");
}

/** The `webhook-signature` header of one message: a `v1,<base64>` signature per secret, space-separated. */
export function signWebhook(secrets: readonly string[], id: string, timestamp: number, body: string): string {
  const content = `${id}.${timestamp}.${body}`;
  return secrets
    .map((secret) => `v1,${createHmac("sha256", secretKey(secret)).update(content).digest("base64")}`)
    .join(" ");
}

/** The three headers of a signed message; `timestamp` in seconds since the epoch, as the standard has it. */
export function webhookHeaders(
  secrets: readonly string[],
  id: string,
  timestamp: number,
  body: string,
): Record<"webhook-id" | "webhook-timestamp" | "webhook-signature", string> {
  return {
    "webhook-id": id,
    "webhook-timestamp": String(timestamp),
    "webhook-signature": signWebhook(secrets, id, timestamp, body),
  };
}
