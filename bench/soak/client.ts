// One soak connection: owns its products, draws requests from the mix (reads, deletes, single,
// bulk and CSV imports, some wrong on purpose) and checks every answer against its model.
import { type Product, toProductView } from "@catalog-kit/catalog-core";
import { type Connection, problemCode } from "../client.ts";
import { generateProducts, seeded, toCsvContent } from "../data.ts";
import { Model } from "./model.ts";
import { API, IDS, MAX_BATCH, SEED, SITE_QUERY, SKU_VARIANTS } from "./options.ts";
import { type Op, type Stats, WEIGHTS } from "./stats.ts";

const cents = (value: number) => Math.round(value * 100) / 100;

/** One connection and the products it owns. */
export class Client extends Model {
  readonly ids: string[];
  private readonly bases = new Map<string, Product>();
  /** Ids whose last write got no answer: either state is acceptable, and the client stops. */
  readonly uncertain = new Map<string, Product | undefined>();
  private readonly random: () => number;
  private seq = 0;
  stopped = false;
  readonly index: number;
  readonly connection: Connection;
  private readonly stats: Stats;

  constructor(index: number, connection: Connection, stats: Stats) {
    super();
    this.index = index;
    this.connection = connection;
    this.stats = stats;
    this.random = seeded(SEED * 1_000 + index);
    const bases = generateProducts(IDS, SEED, index * IDS);
    this.ids = bases.map((_, k) => `soak-${index}-${k}`);
    for (const [k, base] of bases.entries()) this.bases.set(this.ids[k] as string, base);
  }

  private pick<T>(list: readonly T[]): T {
    return list[Math.floor(this.random() * list.length)] as T;
  }

  private skuOf(id: string, variant: number): string {
    return `SOAK-${id.slice(5)}-v${variant}`;
  }

  /** A new version of `id`: a fresh title naming this request, new prices, sometimes fewer fields or another sku. */
  private version(id: string, request: number): Product {
    const base = this.bases.get(id) as Product;
    const current = this.model.get(id);
    const sku =
      current !== undefined && this.random() < 0.7
        ? current.sku
        : this.skuOf(id, Math.floor(this.random() * SKU_VARIANTS));
    const price = cents(5 + this.random() * 300);
    const product: Product = {
      ...base,
      id,
      sku,
      title: `${base.title} #c${this.index}r${request}`,
      price,
      price_min: cents(price * 0.8),
      price_max: cents(price * 1.2),
      available: this.random() < 0.8,
    };
    // Upsert is replace: a later version without these fields must leave none of them behind.
    if (this.random() < 0.1) {
      delete product.description;
      delete product.images;
      delete product.price_min;
    }
    return product;
  }

  /** Imports the whole pool at once, so that the catalog is full from the start. */
  async fill(): Promise<void> {
    const request = ++this.seq;
    await this.write(
      "bulk",
      this.ids.map((id) => this.version(id, request)),
      false,
    );
  }

  private batch(size: number): Product[] {
    const request = ++this.seq;
    const chosen = new Set<string>();
    while (chosen.size < Math.min(size, this.ids.length)) chosen.add(this.pick(this.ids));
    const batch = [...chosen].map((id) => this.version(id, request));
    const present = batch.filter((p) => this.model.has(p.id));
    // Two products trading SKUs in one request is allowed, and moves two index entries at once.
    if (present.length >= 2 && this.random() < 0.1) {
      const [a, b] = present as [Product, Product];
      const skuA = (this.model.get(a.id) as Product).sku;
      a.sku = (this.model.get(b.id) as Product).sku;
      b.sku = skuA;
    }
    // Now and then, claim an SKU that another product keeps: the whole request must be refused.
    if (this.random() < 0.04) {
      const holder = this.ids.find((id) => this.model.has(id) && !chosen.has(id));
      if (holder !== undefined) (batch[0] as Product).sku = (this.model.get(holder) as Product).sku;
    }
    return batch;
  }

  private async write(kind: "single" | "bulk" | "csv", batch: readonly Product[], poisoned: boolean): Promise<void> {
    const expected = this.judge(batch, poisoned);
    let body: string;
    if (kind === "single") body = JSON.stringify({ product: batch[0] });
    else if (kind === "bulk") body = JSON.stringify({ products: batch });
    else body = JSON.stringify({ csvContent: toCsvContent(batch) });
    const path = kind === "single" ? API : kind === "bulk" ? `${API}/bulk` : `${API}/bulk/csv`;
    const answer = await this.connection.send("POST", path, body);
    this.stats.record(kind, answer);
    if (answer.status === 200) {
      this.apply(batch);
      if (expected.status !== 200) {
        this.stats.fail(`${kind}: 200 instead of ${expected.status} ${expected.code}`, answer.body);
        return;
      }
      const got = JSON.parse(answer.body) as Record<string, number>;
      const { created, updated, unchanged } = expected.counts;
      if (
        got.total !== batch.length ||
        got.created !== created ||
        got.updated !== updated ||
        got.unchanged !== unchanged
      ) {
        this.stats.fail(`${kind}: counts differ`, `expected ${JSON.stringify(expected.counts)}, got ${answer.body}`);
      }
      return;
    }
    if (answer.status === 400 && expected.status === 400 && problemCode(answer.body) === expected.code) return;
    if (answer.status === 0 || answer.status >= 500) {
      // Nobody knows whether it was applied: accept either state, and stop this client.
      for (const product of batch) this.uncertain.set(product.id, product);
      this.stopped = true;
    }
    const wanted = expected.status === 200 ? "200" : `400 ${expected.code}`;
    this.stats.fail(
      `${kind}: ${answer.status || answer.error} instead of ${wanted}`,
      answer.body.slice(0, 300) || (answer.error ?? ""),
    );
  }

  private async read(
    op: "get-id" | "get-sku" | "delete",
    key: string,
    by: "id" | "sku" | undefined,
    expected: Product | undefined,
  ) {
    const query = by === undefined ? SITE_QUERY : `${SITE_QUERY}&by=${by}`;
    const answer = await this.connection.send(
      op === "delete" ? "DELETE" : "GET",
      `${API}/${encodeURIComponent(key)}?${query}`,
    );
    this.stats.record(op, answer);
    if (expected === undefined) {
      if (answer.status === 400 && problemCode(answer.body) === "PRODUCT_NOT_FOUND") return;
      this.stats.fail(
        `${op}: ${answer.status || answer.error} instead of 400 PRODUCT_NOT_FOUND`,
        `${key}: ${answer.body.slice(0, 300)}`,
      );
      return;
    }
    if (answer.status !== 200) {
      this.stats.fail(`${op}: ${answer.status || answer.error} instead of 200`, `${key}: ${answer.body.slice(0, 300)}`);
      if (op === "delete" && (answer.status === 0 || answer.status >= 500)) {
        this.uncertain.set(expected.id, undefined);
        this.stopped = true;
      }
      return;
    }
    if (op === "delete") {
      this.forgetProduct(expected.id);
      return;
    }
    const view = JSON.stringify(toProductView(expected));
    if (answer.body !== view) this.stats.fail(`${op}: another product`, `expected ${view}, got ${answer.body}`);
  }

  /** One request of the mix. */
  async step(): Promise<void> {
    let roll = this.random() * 100;
    let op: Op = "get-id";
    for (const [name, weight] of WEIGHTS) {
      if (roll < weight) {
        op = name;
        break;
      }
      roll -= weight;
    }
    const id = this.pick(this.ids);
    const current = this.model.get(id);
    switch (op) {
      case "get-id":
        return this.read(op, id, this.random() < 0.5 ? "id" : undefined, current);
      case "get-sku": {
        if (current !== undefined && this.random() < 0.8) return this.read(op, current.sku, "sku", current);
        const sku = this.skuOf(id, Math.floor(this.random() * SKU_VARIANTS));
        const holder = this.skus.get(sku);
        return this.read(op, sku, "sku", holder === undefined ? undefined : this.model.get(holder));
      }
      case "delete":
        if (current !== undefined && this.random() < 0.3) return this.read(op, current.sku, "sku", current);
        return this.read(op, id, "id", current);
      case "single": {
        // Sending the stored product again must count as unchanged.
        if (current !== undefined && this.random() < 0.1) {
          ++this.seq;
          return this.write(op, [current], false);
        }
        const [product] = this.batch(1) as [Product];
        const poisoned = this.random() < 0.02;
        return this.write(op, [poisoned ? { ...product, price: -1 } : product], poisoned);
      }
      default: {
        const batch = this.batch(10 + Math.floor(this.random() * (MAX_BATCH - 10)));
        const poisoned = this.random() < 0.02;
        if (poisoned) {
          const victim = Math.floor(this.random() * batch.length);
          batch[victim] = { ...(batch[victim] as Product), price: -1 };
        }
        return this.write(op, batch, poisoned);
      }
    }
  }
}
