import { setTimeout as sleep } from "node:timers/promises";

/** Polls `probe` until it returns something other than undefined (errors count as undefined). */
export async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await sleep(10);
  }
}

/** What a promise settled with, and how long it took. */
export type Settled<T> = { ok: true; value: T; ms: number } | { ok: false; error: unknown; ms: number };

export async function settle<T>(promise: Promise<T>): Promise<Settled<T>> {
  const started = performance.now();
  try {
    const value = await promise;
    return { ok: true, value, ms: performance.now() - started };
  } catch (error) {
    return { ok: false, error, ms: performance.now() - started };
  }
}
