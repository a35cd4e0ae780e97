// Part 2: SIGTERM to a server during a large import, at a chosen moment; the request in flight
// must complete whole or be refused whole, and the server must exit with status 0.
import { Agent, request } from "node:http";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import type { CatalogStore } from "@catalog-kit/catalog-core";
import { type Answer, Connection, sameProduct } from "../client.ts";
import { generateProducts } from "../data.ts";
import type { Standalone } from "../standalone.ts";
import { waitHealthy } from "./crash.ts";
import { API, SEED, SHUTDOWN_PRODUCTS, SHUTDOWN_SITE, SHUTDOWN_TOKEN, type ShutdownMode } from "./options.ts";
import { fail, log } from "./record.ts";

export interface ShutdownResult {
  readonly mode: ShutdownMode;
  readonly answer: string;
  readonly stored: number;
  readonly exitCode: number | null;
  readonly ok: boolean;
}

function rawImport(
  url: string,
  body: Buffer,
  agent: Agent,
  hooks: { afterHalf?: () => Promise<void>; afterUpload?: () => void },
): Promise<Answer> {
  const base = new URL(url);
  const t0 = performance.now();
  return new Promise((resolve) => {
    let settled = false;
    const finish = (answer: Omit<Answer, "ms">) => {
      if (!settled) resolve({ ...answer, ms: performance.now() - t0 });
      settled = true;
    };
    const req = request(
      {
        host: base.hostname,
        port: base.port,
        method: "POST",
        path: `${API}/bulk`,
        agent,
        timeout: 120_000,
        headers: {
          "x-service-access-token": SHUTDOWN_TOKEN,
          "content-type": "application/json",
          "content-length": body.length,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => finish({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
        res.on("error", (error) => finish({ status: 0, body: "", error: error.message }));
      },
    );
    req.on("error", (error: NodeJS.ErrnoException) =>
      finish({ status: 0, body: "", error: error.code ?? error.message }),
    );
    req.on("timeout", () => req.destroy(new Error("no answer")));
    req.on("finish", () => hooks.afterUpload?.());
    if (hooks.afterHalf === undefined) req.end(body);
    else {
      const half = Math.floor(body.length / 2);
      req.write(body.subarray(0, half));
      void hooks.afterHalf().then(() => req.end(body.subarray(half)));
    }
  });
}

export async function shutdownRound(round: number, mode: ShutdownMode, server: Standalone, store: CatalogStore) {
  const tag = `[shutdown ${round} ${mode}]`;
  const products = generateProducts(SHUTDOWN_PRODUCTS, SEED + 100 + round).map((p, k) => ({
    ...p,
    id: `sd${round}-${k}`,
    sku: `SD-${round}-${k}`,
    title: `${p.title} ${tag}`,
  }));
  const body = Buffer.from(JSON.stringify({ products }));
  await waitHealthy(server);
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const terminate = () => {
    log(`  SIGTERM to the server (${mode})`);
    server.signal("SIGTERM");
  };
  let answer: Answer;
  const t0 = performance.now();
  if (mode === "mid-upload") {
    answer = await rawImport(server.url, body, agent, {
      afterHalf: async () => {
        await sleep(150);
        terminate();
        await sleep(300);
      },
    });
  } else if (mode === "after-upload") {
    answer = await rawImport(server.url, body, agent, { afterUpload: () => setTimeout(terminate, 20) });
  } else if (mode === "random") {
    // The import takes about a second per 10,000 products here: aim anywhere inside it.
    const delay = Math.floor(Math.random() * (SHUTDOWN_PRODUCTS / 10));
    setTimeout(terminate, delay);
    answer = await rawImport(server.url, body, agent, {});
  } else {
    // An idle keep-alive connection is open when the signal arrives; the import comes after it.
    const warm = new Connection(server.url, SHUTDOWN_TOKEN);
    await warm.send("GET", "/healthz");
    terminate();
    await sleep(300);
    answer = await rawImport(server.url, body, agent, {});
    warm.close();
  }
  agent.destroy();
  const seconds = (performance.now() - t0) / 1_000;
  const exitCode = await Promise.race([
    server.exited,
    sleep(40_000, undefined, { ref: false }).then(() => "still running" as const),
  ]);
  if (exitCode === "still running") server.signal("SIGKILL");

  let stored = 0;
  let differ = 0;
  for (let from = 0; from < products.length; from += 1_000) {
    const slice = products.slice(from, from + 1_000);
    const found = await Promise.all(slice.map((p) => store.find(SHUTDOWN_SITE, p.id, "id")));
    found.forEach((product, k) => {
      if (product === undefined) return;
      stored++;
      if (!sameProduct(product, slice[k])) differ++;
    });
  }
  const describe = answer.status === 0 ? `no answer (${answer.error})` : `${answer.status}`;
  let ok = true;
  const where = `round ${round} (${mode})`;
  if (answer.status === 200) {
    const counts = JSON.parse(answer.body) as Record<string, number>;
    if (counts.total !== products.length || counts.created !== products.length) {
      fail("shutdown: wrong counts", `${where}: ${answer.body}`);
      ok = false;
    }
    if (stored !== products.length || differ > 0) {
      fail("shutdown: answered 200 but not all stored", `${where}: ${stored} of ${products.length}, ${differ} differ`);
      ok = false;
    }
  } else if (answer.status === 0) {
    if (stored > 0) {
      fail("shutdown: refused request left products", `${where}: ${stored} of ${products.length}`);
      ok = false;
    }
  } else {
    fail("shutdown: unexpected answer", `${where}: ${answer.status} ${answer.body.slice(0, 200)}`);
    ok = false;
    if (stored !== 0 && stored !== products.length) fail("shutdown: partial batch", `${where}: ${stored} stored`);
  }
  if (exitCode !== 0) {
    fail("shutdown: server exit status", `${where}: ${exitCode}`);
    ok = false;
  }
  log(
    `  round ${round} (${mode}): ${describe} after ${seconds.toFixed(1)} s; ${stored} of ${products.length} stored; server exit ${exitCode}`,
  );
  return { mode, answer: describe, stored, exitCode: typeof exitCode === "number" ? exitCode : null, ok };
}
