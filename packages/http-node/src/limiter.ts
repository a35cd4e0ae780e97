/** Runs at most `max` tasks at once; the others wait their turn, first come first served. */
export interface Limiter {
  run<T>(task: () => Promise<T>): Promise<T>;
  /** Tasks waiting for their turn now. */
  readonly waiting: number;
}

/** Creates a limiter of `max` concurrent tasks. */
export function createLimiter(max: number): Limiter {
  if (!Number.isSafeInteger(max) || max < 1) throw new RangeError(`The limit must be a positive integer; got ${max}`);
  let running = 0;
  const waiting: (() => void)[] = [];
  return {
    get waiting() {
      return waiting.length;
    },
    async run(task) {
      if (running >= max) await new Promise<void>((resolve) => waiting.push(resolve));
      else running++;
      try {
        return await task();
      } finally {
        // The slot passes straight to the next in line, so `running` never dips and rises again.
        const next = waiting.shift();
        if (next === undefined) running--;
        else next();
      }
    },
  };
}
