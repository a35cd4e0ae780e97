// The script calls of a staged import still in flight. They outlive the add that sent them, so
// that Redis stays busy while the catalog checks the next chunk.
import type { Product } from "@catalog-kit/catalog-core";

/** Calls in flight, each with the products it stages, and the first failure among them. */
export class InFlight {
  private readonly calls = new Map<Promise<void>, readonly Product[]>();
  private failure: { error: unknown } | undefined;

  /** Whether a call failed and its failure was not thrown yet. */
  get failed(): boolean {
    return this.failure !== undefined;
  }

  /** Whether nothing is in flight and no failure is left to throw. */
  get idle(): boolean {
    return this.calls.size === 0 && this.failure === undefined;
  }

  /** Tracks `call`, which stages `products`: its failure is kept for `raise`. */
  track(call: Promise<void>, products: readonly Product[]): void {
    const tracked: Promise<void> = call.then(
      () => {
        this.calls.delete(tracked);
      },
      (error: unknown) => {
        this.failure ??= { error };
        this.calls.delete(tracked);
      },
    );
    this.calls.set(tracked, products);
  }

  /** Resolves once fewer than `room` calls are in flight (1: none); never rejects. */
  async landed(room = 1): Promise<void> {
    while (this.calls.size >= room) await Promise.race(this.calls.keys());
  }

  /** Throws the first failure of a call, once. */
  raise(): void {
    if (this.failure === undefined) return;
    const { error } = this.failure;
    this.failure = undefined;
    throw error;
  }

  /**
   * Whether `products` repeat an id still in flight: the later product must be sent once it
   * landed (a call resent after NOSCRIPT or a redirection could overtake the earlier one).
   */
  meets(products: readonly Product[]): boolean {
    if (this.calls.size === 0) return false;
    const ids = new Set<string>();
    for (const staged of this.calls.values()) for (const { id } of staged) ids.add(id);
    return products.some(({ id }) => ids.has(id));
  }
}
