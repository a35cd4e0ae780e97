// When a failed delivery is tried again: jittered exponential backoff, or what the target's
// `Retry-After` asks for, never past the delivery's deadline.

/**
 * A `Retry-After` header's wait in milliseconds: delay-seconds (`120`) or an HTTP date, from
 * `now`; `undefined` when absent or unreadable. A date in the past is a wait of 0.
 */
export function retryAfterMs(header: string | undefined, now: number): number | undefined {
  if (header === undefined) return undefined;
  const text = header.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // Only a date, as RFC 9110 has it: Date.parse would also read "1" or "tomorrow 3pm" as a time.
  if (!/^[A-Za-z]{3}, \d{2} [A-Za-z]{3} \d{4} \d{2}:\d{2}:\d{2} GMT$/.test(text)) return undefined;
  const time = Date.parse(text);
  return Number.isNaN(time) ? undefined : Math.max(0, time - now);
}

/** The backoff's timing: the first wait and the longest. */
export interface BackoffSettings {
  readonly retryBaseMs: number;
  readonly retryMaxMs: number;
}

/**
 * The wait before try number `attempt + 1` after `attempt` failed ones (from 1): `retryBaseMs`
 * doubled each time up to `retryMaxMs`, of which a random half is kept (so that deliveries that
 * failed together do not all come back at once), `random` in [0, 1).
 */
export function backoffMs(attempt: number, settings: BackoffSettings, random: number = Math.random()): number {
  const ceiling = Math.min(settings.retryMaxMs, settings.retryBaseMs * 2 ** Math.min(attempt - 1, 40));
  return Math.round(ceiling / 2 + (random * ceiling) / 2);
}
