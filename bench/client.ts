// A minimal HTTP client for load and fault scripts: one keep-alive connection per simulated
// client, so that the order of one client's requests is the order the server sees them, and every
// answer (status, body, latency) is handed back for checking instead of being only counted.
import { Agent, request } from "node:http";
import { performance } from "node:perf_hooks";
import { PRODUCT_FIELDS, type Product } from "@catalog-kit/catalog-core";

/** An answer, or `status: 0` with `error` when none came (connection refused or reset, timeout). */
export interface Answer {
  readonly status: number;
  readonly body: string;
  readonly ms: number;
  readonly error?: string;
}

/** One client: its requests go one after another over one connection. */
export class Connection {
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 1 });
  private readonly base: URL;
  private readonly token: string;

  constructor(baseUrl: string, token: string) {
    this.base = new URL(baseUrl);
    this.token = token;
  }

  send(method: string, path: string, body?: string, timeoutMs = 60_000): Promise<Answer> {
    const started = performance.now();
    const headers: Record<string, string | number> = { "x-service-access-token": this.token };
    let payload: Buffer | undefined;
    if (body !== undefined) {
      payload = Buffer.from(body);
      headers["content-type"] = "application/json";
      headers["content-length"] = payload.length;
    }
    return new Promise((resolve) => {
      let settled = false;
      const finish = (answer: Omit<Answer, "ms">) => {
        if (settled) return;
        settled = true;
        resolve({ ...answer, ms: performance.now() - started });
      };
      const req = request(
        {
          host: this.base.hostname,
          port: this.base.port,
          method,
          path,
          headers,
          agent: this.agent,
          timeout: timeoutMs,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (chunk: Buffer) => chunks.push(chunk));
          res.on("end", () => finish({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }));
          res.on("error", (error) => finish({ status: 0, body: "", error: describe(error) }));
        },
      );
      req.on("timeout", () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
      req.on("error", (error) => finish({ status: 0, body: "", error: describe(error) }));
      req.end(payload);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

function describe(error: Error): string {
  const code = (error as NodeJS.ErrnoException).code;
  return code ?? error.message;
}

/** The `code` of a problem+json body, if it is one. */
export function problemCode(body: string): string | undefined {
  try {
    const code = (JSON.parse(body) as { code?: unknown }).code;
    return typeof code === "string" ? code : undefined;
  } catch {
    return undefined;
  }
}

/** The `q`-quantile (0..1) of some values, nearest rank. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = Float64Array.from(values).sort();
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] as number;
}

/** Counts by key, printed as `200: 1234, 400 SKU_CONFLICT: 5`. */
export class Tally {
  private readonly counts = new Map<string, number>();

  add(key: string, by = 1): void {
    this.counts.set(key, (this.counts.get(key) ?? 0) + by);
  }

  get(key: string): number {
    return this.counts.get(key) ?? 0;
  }

  get total(): number {
    let sum = 0;
    for (const count of this.counts.values()) sum += count;
    return sum;
  }

  toString(): string {
    if (this.counts.size === 0) return "none";
    return [...this.counts]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([key, count]) => `${key}: ${count}`)
      .join(", ");
  }
}

/** Megabytes, one decimal. */
export function mb(bytes: number): string {
  return `${(bytes / 1_048_576).toFixed(1)} MB`;
}

/**
 * Whether two products are equal as the catalog sees them: field by field, an absent optional
 * equal only to an absent one, whatever the key order (a stored product comes back in canonical
 * order, a sent one in any).
 */
export function sameProduct(a: Product | undefined, b: Product | undefined): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined) return false;
  for (const field of PRODUCT_FIELDS) {
    const x = a[field];
    const y = b[field];
    if (x === y) continue;
    if (!Array.isArray(x) || !Array.isArray(y) || x.length !== y.length) return false;
    for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return false;
  }
  return true;
}
