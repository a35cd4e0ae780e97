// The groups an import has closed, in memory that does not hold their names: each name is kept as
// a 64-bit fingerprint (two 32-bit hashes) beside the position where its group began, 12 bytes a
// slot of an open-addressing table at most three quarters full. A million products take 24 MB
// (a 1 GiB Shopify file's table measured 64 MB before: 8-byte positions, half full); two names
// share a fingerprint with a chance of about 3 in a million for ten million groups.

// MurmurHash3's 32-bit mix over UTF-16 units, seeded.
function hash(text: string, seed: number): number {
  let h = seed;
  for (let i = 0; i < text.length; i++) {
    let k = Math.imul(text.charCodeAt(i), 0xcc9e2d51);
    k = (k << 15) | (k >>> 17);
    h ^= Math.imul(k, 0x1b873593);
    h = (h << 13) | (h >>> 19);
    h = (Math.imul(h, 5) + 0xe6546b64) | 0;
  }
  h ^= text.length;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** A set of names, each with the position it was added at, kept as fingerprints. */
export class KeyTable {
  private high = new Uint32Array(1024);
  private low = new Uint32Array(1024);
  private at = new Uint32Array(1024);
  private size = 0;

  /** The position `name` was added at, or `undefined`. */
  get(name: string): number | undefined {
    const slot = this.find(hash(name, 0x9747b28c), hash(name, 0x5bd1e995));
    return this.at[slot] === 0 ? undefined : (this.at[slot] as number) - 1;
  }

  /** Adds `name` at `position` (kept if it is there already). */
  add(name: string, position: number): void {
    if ((this.size + 1) * 4 > this.at.length * 3) this.grow();
    const high = hash(name, 0x9747b28c);
    const low = hash(name, 0x5bd1e995);
    const slot = this.find(high, low);
    if (this.at[slot] !== 0) return;
    this.high[slot] = high;
    this.low[slot] = low;
    // Stored one higher, so that 0 marks an empty slot; a position is a line or an item, far below 2^32.
    this.at[slot] = Math.min(position + 1, 0xffffffff);
    this.size++;
  }

  private find(high: number, low: number): number {
    const mask = this.at.length - 1;
    let slot = (high ^ Math.imul(low, 0x9e3779b1)) & mask;
    while (this.at[slot] !== 0 && (this.high[slot] !== high || this.low[slot] !== low)) slot = (slot + 1) & mask;
    return slot;
  }

  private grow(): void {
    const { high, low, at } = this;
    this.high = new Uint32Array(at.length * 2);
    this.low = new Uint32Array(at.length * 2);
    this.at = new Uint32Array(at.length * 2);
    for (let slot = 0; slot < at.length; slot++) {
      if (at[slot] === 0) continue;
      const to = this.find(high[slot] as number, low[slot] as number);
      this.high[to] = high[slot] as number;
      this.low[to] = low[slot] as number;
      this.at[to] = at[slot] as number;
    }
  }
}
