// The margin of a token's rate limit with several servers: `npm start`'s server, 1 and then 3 of
// them on one private redis-server, a quota of requests a minute, and GETs sent round robin to
// the servers from keep-alive connections until every server refuses them. One server admits its
// quota exactly; N admit more by what the others admitted before they read the total spent
// (each settles its counts with the store four times a second). Only 127.0.0.1 is contacted.
//
//   npm run margin                       # quota 3,000 a minute, 32 connections, 1 and 3 servers
//   npm run margin -- --quota 6000 --connections 64

import { Agent, request } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import { parseArgs } from "node:util";
import { startRedisServer } from "@catalog-kit/test-support";
import { killRedisOnExit, type Standalone, startStandalone } from "./standalone.ts";

const { values } = parseArgs({
  options: {
    quota: { type: "string", default: "3000" },
    connections: { type: "string", default: "32" },
    servers: { type: "string", default: "1,3" },
  },
});
const QUOTA = Number(values.quota);
const CONNECTIONS = Number(values.connections);
const SITE = { siteId: "margin", siteType: "bench" };
const TOKEN = "margin-token";
const PRODUCT = {
  id: "m-1",
  sku: "M-1",
  title: "Margin",
  available: true,
  featured_image: "https://i",
  url: "https://u",
};

// One request on a keep-alive connection of `agent`: its status, its body read and dropped.
function send(agent: Agent, url: string, headers: Record<string, string>, body?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: body === undefined ? "GET" : "POST", headers, agent }, (res) => {
      res.resume();
      res.once("end", () => resolve(res.statusCode ?? 0));
    });
    req.once("error", reject);
    req.end(body);
  });
}

interface Round {
  readonly servers: number;
  readonly admitted: number;
  readonly refused: number;
  /** GETs a second in the second before the first 429. */
  readonly rate: number;
}

async function round(count: number, redisUrl: string): Promise<Round> {
  const config = {
    sites: [SITE],
    tokens: [{ token: TOKEN, sites: [SITE] }],
    // A key prefix of the round's own: its counters start at 0.
    storage: { adapter: "redis", url: redisUrl, keyPrefix: `margin-${count}-${Date.now()}` },
    rateLimits: { requestsPerMinute: QUOTA },
    accessLog: false,
  };
  const servers: Standalone[] = await Promise.all(
    Array.from({ length: count }, (_, i) => startStandalone(`server ${i + 1}`, config)),
  );
  const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  const headers = { "x-service-access-token": TOKEN, "content-type": "application/json" };
  const base = servers.map((s) => s.url);
  try {
    const created = await send(
      agent,
      `${base[0]}/external/product/v1`,
      headers,
      JSON.stringify({ ...SITE, product: PRODUCT }),
    );
    if (created !== 200) throw new Error(`the product was not imported: ${created}`);
    // Windows are the clock's minutes: start where the quota is spent well before the minute ends.
    const intoMinute = Date.now() % 60_000;
    if (intoMinute > 40_000) await sleep(60_000 - intoMinute + 200);
    // The import that made the product is a request of the token too.
    let admitted = 1;
    let refused = 0;
    let firstRefusal = 0;
    const admittedAt: number[] = [];
    // Each server's last 429, so the round ends once every server has refused for 500 ms.
    const lastAdmitted = servers.map(() => performance.now());
    let next = 0;
    const path = `/external/product/v1/${PRODUCT.id}?siteId=${SITE.siteId}&siteType=${SITE.siteType}`;
    const done = () => refused > 0 && lastAdmitted.every((t) => performance.now() - t > 500);
    await Promise.all(
      Array.from({ length: CONNECTIONS }, async () => {
        while (!done()) {
          const at = next++ % count;
          const status = await send(agent, base[at] + path, headers);
          if (status === 200) {
            admitted++;
            admittedAt.push(performance.now());
            lastAdmitted[at] = performance.now();
          } else if (status === 429) {
            refused++;
            if (firstRefusal === 0) firstRefusal = performance.now();
          } else throw new Error(`unexpected status ${status}`);
        }
      }),
    );
    const rate = admittedAt.filter((t) => t > firstRefusal - 1_000 && t <= firstRefusal).length;
    return { servers: count, admitted, refused, rate };
  } finally {
    agent.destroy();
    await Promise.all(servers.map((s) => s.stop()));
  }
}

const redis = await startRedisServer();
await killRedisOnExit(redis.url);
const rounds: Round[] = [];
try {
  for (const count of values.servers.split(",").map(Number)) {
    const result = await round(count, redis.url);
    rounds.push(result);
    process.stdout.write(`${count} server(s): ${result.admitted} admitted of a quota of ${QUOTA}\n`);
  }
} finally {
  await redis.stop();
}
const n = (value: number) => value.toLocaleString("en-US");
process.stdout.write(
  "\n| servers | quota a minute | connections | admitted | over the quota | GETs a second before the first 429 | over, in time of that traffic |\n" +
    "| ------: | -------------: | ----------: | -------: | -------------: | ---------------------------------: | ----------------------------: |\n",
);
for (const { servers, admitted, rate } of rounds) {
  const over = admitted - QUOTA;
  const ms = rate === 0 ? 0 : Math.round((over / rate) * 1_000);
  process.stdout.write(
    `| ${servers} | ${n(QUOTA)} | ${CONNECTIONS} | ${n(admitted)} | ${n(over)} | ${n(rate)} | ${ms} ms |\n`,
  );
}
