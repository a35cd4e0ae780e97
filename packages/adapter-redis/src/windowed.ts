/**
 * Runs `task` over `items` with at most `width` tasks in flight, pulling items only as tasks
 * start (so a lazy iterable is consumed while earlier tasks wait on the network). After the
 * first failure no new task starts; the first error is thrown once the running ones settle.
 */
export async function windowed<T>(items: Iterable<T>, width: number, task: (item: T) => Promise<void>): Promise<void> {
  const iterator = items[Symbol.iterator]();
  let failure: { error: unknown } | undefined;
  async function worker(): Promise<void> {
    while (failure === undefined) {
      const next = iterator.next();
      if (next.done) return;
      try {
        await task(next.value);
      } catch (error) {
        failure ??= { error };
      }
    }
  }
  await Promise.all(Array.from({ length: width }, worker));
  if (failure !== undefined) throw failure.error;
}
