// The products the main thread found lately, answered again without SQLite while the file is
// unchanged: a lookup of a product a shop's storefront asks for again and again costs a map
// read and a copy, where a statement cost 10 to 25 µs. The file's `data_version`, read once a
// lookup (about a microsecond), changes with every commit of any other connection, the store's
// own writer thread and other processes alike: then everything kept is dropped. So a lookup never
// answers what a commit that had completed before it changed.
import type { DecodedBodies, Product } from "@catalog-kit/catalog-core";
import type { Connection } from "./connection.ts";

/** A lookup's answer as kept: the decoded product, or `null` for none. */
type Kept = Product | null;

/** How much a read cache keeps at most: lookups, and characters of their bodies. */
export interface ReadCacheLimits {
  readonly entries: number;
  readonly chars: number;
}

/** The default: 10,000 lookups, 8 million characters of bodies (tens of megabytes at most). */
export const READ_CACHE_LIMITS: ReadCacheLimits = { entries: 10_000, chars: 8_000_000 };

/** The answers of recent lookups on one connection, dropped whenever the file changed. */
export class ReadCache {
  private readonly kept = new Map<string, { readonly product: Kept; readonly chars: number }>();
  private chars = 0;
  private version: unknown;
  private readonly connection: Connection;
  private readonly bodies: DecodedBodies;
  private readonly limits: ReadCacheLimits;

  constructor(connection: Connection, bodies: DecodedBodies, limits: ReadCacheLimits = READ_CACHE_LIMITS) {
    this.connection = connection;
    this.bodies = bodies;
    this.limits = limits;
  }

  /**
   * The product `key` names (a lookup's site, field and key), kept or else read by `load` (its
   * body, or `undefined`); a copy the caller may change, as `find` answers.
   */
  lookup(key: string, load: () => string | undefined): Product | undefined {
    this.drop();
    const hit = this.kept.get(key);
    if (hit !== undefined) return hit.product === null ? undefined : this.bodies.copy(hit.product);
    const body = load();
    const product = body === undefined ? null : this.bodies.decode(body);
    this.keep(key, product, body?.length ?? 0);
    return product === null ? undefined : this.bodies.copy(product);
  }

  // Everything kept goes once another connection committed since the last lookup.
  private drop(): void {
    const version = (this.connection.statement("PRAGMA data_version").get() as { data_version: unknown }).data_version;
    if (version === this.version) return;
    this.version = version;
    this.kept.clear();
    this.chars = 0;
  }

  // Oldest first out (a Map keeps its insertion order) once over either limit.
  private keep(key: string, product: Kept, chars: number): void {
    if (chars > this.limits.chars) return;
    this.kept.set(key, { product, chars });
    this.chars += chars;
    for (const [oldest, { chars: size }] of this.kept) {
      if (this.kept.size <= this.limits.entries && this.chars <= this.limits.chars) break;
      this.kept.delete(oldest);
      this.chars -= size;
    }
  }
}
