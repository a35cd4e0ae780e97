// What a scenario watches beside the server it measures: Redis's slow log, CPU and memory through
// a case, and how long the server kept a health check waiting.
import { setTimeout as sleep } from "node:timers/promises";
import type { Redis } from "ioredis";
import { Connection, problemCode } from "./client.ts";
import { cpuSecondsOf } from "./standalone.ts";

/** The Redis side of a case: the longest calls SLOWLOG recorded, Redis's CPU and memory. */
export interface RedisFigures {
  /** Longest script call (EVALSHA, EVAL, FCALL), ms, and the command with the keys it named. */
  readonly script: number;
  readonly scriptCall: string;
  /** Longest command of any kind, ms, likewise. */
  readonly any: number;
  readonly anyCall: string;
  /** Script calls of 10 ms or more. */
  readonly over10: number;
  readonly cpuSeconds: number;
  readonly peakBytes: number;
  readonly usedBytes: number;
  /** Keys in Redis before the case and after it, the sites' import histories left out: every import leaves its record. */
  readonly keysBefore: number;
  readonly keys: number;
}

/**
 * A logged command as its name and the keys it named, without the site's part and the import's
 * token ("EVALSHA in:products in:sku-of"): which step of an import it was.
 */
function callOf(args: readonly string[]): string {
  const name = String(args[0]).toUpperCase();
  const keys = name.startsWith("EVAL") || name === "FCALL" ? args.slice(3, 3 + Number(args[2])) : args.slice(1, 2);
  const roles = keys.map((key) =>
    String(key)
      .replace(/^[^{]*\{[^}]*\}:/, "")
      .replace(/^(in|stage):[^:]+:/, "$1:"),
  );
  return [name, ...new Set(roles)].join(" ");
}

/**
 * Watches one redis-server through a case: every command is logged (`slowlog-log-slower-than 0`,
 * a few thousand calls for a gigabyte) and the log is read and emptied each second in one
 * transaction, so no entry is lost and the log stays short.
 */
export class RedisWatch {
  private readonly admin: Redis;
  private readonly pid: number;
  private timer: NodeJS.Timeout | undefined;
  private cpuBefore = 0;
  private keysBefore = 0;
  private script = 0;
  private scriptCall = "";
  private any = 0;
  private anyCall = "";
  private over10 = 0;
  private draining: Promise<void> = Promise.resolve();
  /**
   * The shortest command the log keeps, µs. A case that sends a command a product (a merge's
   * lookups, a million of them) would spend Redis's CPU and the client's, on two cores the
   * server's too, on logging and reading every one: such a case keeps only the longer ones,
   * which the figures are made of anyway.
   */
  slowerThan = 0;

  constructor(admin: Redis, pid: number) {
    this.admin = admin;
    this.pid = pid;
  }

  async start(): Promise<void> {
    [this.script, this.scriptCall, this.any, this.anyCall, this.over10] = [0, "", 0, "", 0];
    await this.admin.config("SET", "slowlog-log-slower-than", String(this.slowerThan));
    await this.admin.config("SET", "slowlog-max-len", "100000");
    await this.admin.call("SLOWLOG", "RESET");
    this.cpuBefore = await cpuSecondsOf(this.pid);
    this.keysBefore = await this.keyCount();
    this.timer = setInterval(() => {
      this.draining = this.draining.then(() => this.drain());
    }, 1_000);
  }

  private async drain(): Promise<void> {
    const replies = await this.admin.multi().call("SLOWLOG", "GET", "-1").call("SLOWLOG", "RESET").exec();
    const entries = (replies?.[0]?.[1] ?? []) as [number, number, number, string[]][];
    for (const [, , micros, args] of entries) {
      const name = String(args[0]).toUpperCase();
      const script = name === "EVALSHA" || name === "EVAL" || name === "FCALL";
      if (script && micros >= 10_000) this.over10++;
      if (script && micros > this.script) [this.script, this.scriptCall] = [micros, callOf(args)];
      if (micros > this.any) [this.any, this.anyCall] = [micros, callOf(args)];
    }
  }

  // The keys of Redis but those of the sites' import histories (`…:history:…`).
  private async keyCount(): Promise<number> {
    let count = 0;
    for await (const keys of this.admin.scanStream({ count: 1_000 }))
      for (const key of keys as string[]) if (!key.includes(":history:")) count++;
    return count;
  }

  async stop(): Promise<RedisFigures> {
    clearInterval(this.timer);
    await this.draining;
    await this.drain();
    // What runs between cases (loading the next site) is not measured: log nothing meanwhile.
    await this.admin.config("SET", "slowlog-log-slower-than", "10000");
    const cpuSeconds = (await cpuSecondsOf(this.pid)) - this.cpuBefore;
    const memory = await this.admin.info("memory");
    const field = (name: string) => Number(new RegExp(`^${name}:(\\d+)`, "m").exec(memory)?.[1] ?? Number.NaN);
    return {
      script: this.script / 1000,
      scriptCall: this.scriptCall,
      any: this.any / 1000,
      anyCall: this.anyCall,
      over10: this.over10,
      cpuSeconds,
      peakBytes: field("used_memory_peak"),
      usedBytes: field("used_memory"),
      keysBefore: this.keysBefore,
      keys: await this.keyCount(),
    };
  }
}

/** Asks `GET /healthz` (which pings the store) every 200 ms on a connection of its own. */
export function probe(
  url: string,
  token: string,
): () => Promise<{ stall: number; failures: number; failure: string | undefined }> {
  const connection = new Connection(url, token);
  let running = true;
  let stall = 0;
  let failures = 0;
  let failure: string | undefined;
  const loop = (async () => {
    while (running) {
      const answer = await connection.send("GET", "/healthz", undefined, 600_000);
      stall = Math.max(stall, answer.ms);
      if (answer.status !== 200) {
        failures++;
        failure ??= answer.error ?? `${answer.status} ${problemCode(answer.body) ?? ""}`.trim();
      }
      await sleep(200);
    }
  })();
  return async () => {
    running = false;
    await loop;
    connection.close();
    return { stall, failures, failure };
  };
}
