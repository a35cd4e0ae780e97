// Part 1's load: one client that owns its product ids, sends JSON and CSV imports of overlapping
// SKUs to both servers as fast as they answer, and judges each answer as the workload allows.
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import type { Product } from "@catalog-kit/catalog-core";
import { type Answer, type Connection, problemCode } from "../client.ts";
import { generateProducts, seeded, toCsvContent } from "../data.ts";
import { API, IDS, LARGE, SEED, SHARED_SKUS, SMALL } from "./options.ts";
import { fail, statuses } from "./record.ts";

export type Outcome = "ok" | "refused" | "unknown";

export interface Sent {
  readonly seq: number;
  readonly products: ReadonlyMap<string, Product>;
  readonly large: boolean;
  outcome: Outcome;
}

// A 503 while Redis is down is the point of the exercise; one because another import held the
// site past the wait limit says something else (contention), so the tally keeps them apart.
function whyUnavailable(body: string): string {
  const detail = String((JSON.parse(body) as { detail?: unknown }).detail ?? "");
  if (/busy/i.test(detail)) return "site busy";
  if (/expired/i.test(detail)) return "import expired";
  return "Redis unreachable";
}

export class Writer {
  readonly ids: string[];
  private readonly bases = new Map<string, Product>();
  /** Every request this client sent, in order (seq = index + 1). */
  readonly sent: Sent[] = [];
  /** Each id's last acknowledged version: what its next version starts from. */
  private readonly acked = new Map<string, Product>();
  private readonly random: () => number;
  inFlightLarge = false;
  /** The request waiting for its answer, and since when: a hang shows up in the progress lines. */
  inFlight: { seq: number; server: string; size: number; since: number } | undefined;
  readonly index: number;
  private readonly connections: readonly Connection[];

  constructor(index: number, connections: readonly Connection[]) {
    this.index = index;
    this.connections = connections;
    this.random = seeded(SEED * 1_000 + index);
    const bases = generateProducts(IDS, SEED, index * IDS);
    this.ids = bases.map((_, k) => `f${index}-${k}`);
    for (const [k, base] of bases.entries()) this.bases.set(this.ids[k] as string, base);
  }

  private between([low, high]: readonly number[]): number {
    return (low as number) + Math.floor(this.random() * ((high as number) - (low as number) + 1));
  }

  private batch(seq: number, size: number): Map<string, Product> {
    const chosen = new Set<string>();
    while (chosen.size < size) chosen.add(this.ids[Math.floor(this.random() * this.ids.length)] as string);
    const batch = new Map<string, Product>();
    for (const id of chosen) {
      const base = this.bases.get(id) as Product;
      const current = this.acked.get(id);
      // A shared SKU is given back half of the time, so that the pool keeps changing hands.
      const keep = current !== undefined && this.random() < (current.sku.startsWith("SHARED-") ? 0.5 : 0.7);
      const sku = keep ? (current as Product).sku : `F-${id.slice(1)}-v${Math.floor(this.random() * 3)}`;
      const price = Math.round((5 + this.random() * 300) * 100) / 100;
      batch.set(id, {
        ...base,
        id,
        sku,
        title: `${base.title} [c${this.index} r${seq}]`,
        price,
        price_min: Math.round(price * 80) / 100,
        price_max: Math.round(price * 120) / 100,
      });
    }
    if (this.random() < 0.4) {
      const first = batch.values().next().value as Product;
      first.sku = `SHARED-${Math.floor(this.random() * SHARED_SKUS)}`;
    }
    return batch;
  }

  async run(until: number): Promise<void> {
    while (performance.now() < until) {
      const seq = this.sent.length + 1;
      const large = this.random() < 0.2;
      const products = this.batch(seq, this.between(large ? LARGE : SMALL));
      const poisoned = this.random() < 0.05;
      const list = [...products.values()];
      if (poisoned) {
        const k = Math.floor(this.random() * list.length);
        list[k] = { ...(list[k] as Product), price: -1 };
      }
      const csv = this.random() < 0.25;
      const body = csv ? JSON.stringify({ csvContent: toCsvContent(list) }) : JSON.stringify({ products: list });
      const sent: Sent = { seq, products, large, outcome: "unknown" };
      this.sent.push(sent);
      const connection = this.connections[seq % this.connections.length] as Connection;
      this.inFlightLarge = large;
      const server = "AB"[seq % this.connections.length] as string;
      this.inFlight = { seq, server, size: list.length, since: performance.now() };
      const answer = await connection.send("POST", csv ? `${API}/bulk/csv` : `${API}/bulk`, body);
      this.inFlightLarge = false;
      this.inFlight = undefined;
      sent.outcome = this.judge(answer, list, poisoned);
      if (sent.outcome === "ok") for (const product of list) this.acked.set(product.id, product);
      // Redis is down: give it a moment instead of spinning on 503s.
      if (answer.status === 503) await sleep(100);
    }
  }

  private judge(answer: Answer, list: readonly Product[], poisoned: boolean): Outcome {
    const code = problemCode(answer.body);
    statuses.add(
      answer.status === 0
        ? `no answer (${answer.error})`
        : `${answer.status}${code ? ` ${code}` : ""}${answer.status === 503 ? ` (${whyUnavailable(answer.body)})` : ""}`,
    );
    const where = `client ${this.index} request ${this.sent.length}`;
    if (answer.status === 200) {
      const body = JSON.parse(answer.body) as { total: number; created: number; updated: number; unchanged: number };
      if (poisoned) fail("200 for a batch with an invalid product", where);
      if (body.total !== list.length || body.created + body.updated + body.unchanged !== list.length) {
        fail("200 with wrong counts", `${where}: ${list.length} products, ${answer.body}`);
      }
      return "ok";
    }
    if (answer.status === 400 && code === "VALIDATION_FAILED") {
      if (!poisoned) fail("VALIDATION_FAILED for a valid batch", `${where}: ${answer.body.slice(0, 300)}`);
      return "refused";
    }
    if (answer.status === 400 && code === "SKU_CONFLICT") {
      const errors = (JSON.parse(answer.body) as { errors?: { sku?: string }[] }).errors ?? [];
      if (poisoned) fail("SKU_CONFLICT before validation", where);
      if (errors.length === 0 || !errors.every((e) => e.sku?.startsWith("SHARED-"))) {
        fail("SKU_CONFLICT on a client's own SKU", `${where}: ${answer.body.slice(0, 300)}`);
      }
      return "refused";
    }
    if (answer.status === 503 && code === "STORAGE_UNAVAILABLE") return "unknown";
    fail(
      `unexpected answer ${answer.status || answer.error}${code ? ` ${code}` : ""}`,
      `${where}: ${answer.body.slice(0, 300)}`,
    );
    return answer.status >= 400 && answer.status < 500 ? "refused" : "unknown";
  }
}
