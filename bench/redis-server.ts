import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { Redis } from "ioredis";

/** A private redis-server for one bench run: loopback only, never the standard port, no persistence. */
export interface BenchRedis {
  readonly port: number;
  readonly url: string;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  for (;;) {
    const port = await new Promise<number>((resolve, reject) => {
      const server = createServer();
      server.once("error", reject);
      server.listen(0, "127.0.0.1", () => {
        const address = server.address();
        server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
      });
    });
    if (port !== 6379 && port !== 0) return port;
  }
}

/** Starts redis-server on a free 127.0.0.1 port and waits until it answers; `args` are extra server options. */
export async function startBenchRedis(args: readonly string[] = []): Promise<BenchRedis> {
  const port = await freePort();
  const dir = await mkdtemp(join(tmpdir(), "catalog-bench-redis-"));
  const child: ChildProcess = spawn(
    "redis-server",
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir, ...args],
    { stdio: "ignore" },
  );
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const probe = new Redis({
    port,
    host: "127.0.0.1",
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  probe.on("error", () => {});
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      await probe.connect();
      if ((await probe.ping()) === "PONG") break;
    } catch {
      if (Date.now() > deadline) {
        child.kill("SIGKILL");
        throw new Error(`redis-server did not start on port ${port}`);
      }
      await sleep(25);
    }
  }
  probe.disconnect();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    async stop() {
      child.kill("SIGKILL");
      await exited;
      await rm(dir, { recursive: true, force: true });
    },
  };
}
