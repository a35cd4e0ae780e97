// Instructions a GET by id costs each server's main thread, counted by callgrind: the count repeats
// from one process to the next within about 1 %, where the CPU time of fresh processes spreads by
// a fifth, so it reads differences of a microsecond or two (the access log's, the handler's
// against fastify's) and says, function by function, where they are.
//
//   npm run instructions                     # about five minutes: four servers, two at a time
//   npm run instructions -- --requests 20000 --warmup 20000 --functions 40
//
// Each server runs under valgrind, gets `--warmup` GETs (so that the engine has compiled what is
// hot), then `--requests` GETs counted: 10 keep-alive connections over the bench's stored
// products in a scrambled order, as the HTTP scenario's GETs. Only 127.0.0.1 is contacted.
import { Agent, get } from "node:http";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { type Counted, callgrindLauncher, dump, haveCallgrind, readCounts, zero } from "./callgrind.ts";
import { QUIET, type Running, startNpmStart, startServer } from "./http/servers.ts";
import { getPaths, stored, work } from "./http/setup.ts";
import { markdownTable } from "./report.ts";
import { TOKEN } from "./servers/shared.ts";

const { values } = parseArgs({
  options: {
    requests: { type: "string", default: "10000" },
    warmup: { type: "string", default: "10000" },
    functions: { type: "string", default: "25" },
    // Only these servers (repeatable), such as `--server handler --server "handler, rate limits"`.
    server: { type: "string", multiple: true },
  },
});
const requests = Number(values.requests);
const warmup = Number(values.warmup);
const functions = Number(values.functions);

// GETs over `connections` keep-alive connections, one after another on each; throws on any non-200.
async function sendGets(url: string, count: number, connections = 10): Promise<void> {
  const agent = new Agent({ keepAlive: true, maxSockets: connections });
  let next = 0;
  const one = (path: string) =>
    new Promise<void>((resolve, reject) => {
      get(`${url}${path}`, { agent, headers: { "x-service-access-token": TOKEN } }, (res) => {
        res.resume();
        if (res.statusCode !== 200) reject(new Error(`${path}: ${res.statusCode}`));
        else res.once("end", resolve);
      }).once("error", reject);
    });
  const loop = async () => {
    while (next < count) await one(getPaths[next++ % getPaths.length] as string);
  };
  try {
    await Promise.all(Array.from({ length: connections }, loop));
  } finally {
    agent.destroy();
  }
}

type Start = (file: string) => Promise<Running>;
const serverArgs = ["--storage", "memory", "--preload", String(stored)];
const SERVERS: Record<string, Start> = {
  fastify: (file) => startServer("servers/fastify.ts", serverArgs, callgrindLauncher(file)),
  handler: (file) => startServer("servers/catalog.ts", serverArgs, callgrindLauncher(file)),
  "handler, rate limits": (file) =>
    startServer("servers/catalog.ts", [...serverArgs, "--rate-limits"], callgrindLauncher(file)),
  "npm start": (file) => startNpmStart(undefined, undefined, callgrindLauncher(file)),
  "npm start, log and metrics off": (file) => startNpmStart(undefined, QUIET, callgrindLauncher(file)),
};

// One server: started, warmed, counted over `requests` GETs, stopped.
async function count(name: string, index: number): Promise<Counted> {
  const file = join(work, `callgrind-${index}.out`);
  process.stderr.write(`${name}: starting under callgrind\n`);
  const server = await (SERVERS[name] as Start)(file);
  try {
    const pid = server.pid as number;
    await sendGets(server.url, warmup);
    await zero(pid);
    await sendGets(server.url, requests);
    await dump(pid);
    process.stderr.write(`${name}: counted\n`);
    return await readCounts(file, pid);
  } finally {
    await server.stop();
  }
}

const perRequest = (n: number) => Math.round(n / requests).toLocaleString("en-US");

// Where two servers differ, the functions that differ most first; nothing unless both were counted.
function differences(a: string, b: string, counts: Map<string, Counted>): string[] {
  const first = counts.get(a);
  const second = counts.get(b);
  if (first === undefined || second === undefined) return [];
  const names = new Set([...first.functions.keys(), ...second.functions.keys()]);
  const rows = [...names]
    .map((name) => ({ name, a: first.functions.get(name) ?? 0, b: second.functions.get(name) ?? 0 }))
    .sort((x, y) => Math.abs(y.a - y.b) - Math.abs(x.a - x.b))
    .slice(0, functions);
  return [
    "",
    `${a} against ${b}: ${perRequest(first.total - second.total)} instructions a GET`,
    "",
    markdownTable(
      ["function", a, b, "difference"],
      [false, true, true, true],
      rows.map((row) => [row.name, perRequest(row.a), perRequest(row.b), perRequest(row.a - row.b)]),
    ),
  ];
}

if (!haveCallgrind()) {
  console.error("valgrind is not installed (Debian: apt-get install -y valgrind)");
  process.exit(1);
}
// Counts do not depend on what else the machine runs: two servers at a time.
const names = values.server ?? Object.keys(SERVERS);
for (const name of names) {
  if (!(name in SERVERS)) throw new Error(`--server: no server "${name}"; one of ${Object.keys(SERVERS).join(", ")}`);
}
const counts = new Map<string, Counted>();
for (let i = 0; i < names.length; i += 2) {
  const pair = names.slice(i, i + 2);
  const counted = await Promise.all(pair.map((name, j) => count(name, i + j)));
  for (const [j, name] of pair.entries()) counts.set(name, counted[j] as Counted);
}
console.log(
  [
    `Instructions a GET by id on each server's main thread (callgrind), over ${requests.toLocaleString("en-US")} GETs after ${warmup.toLocaleString("en-US")} of warm-up, ${stored.toLocaleString("en-US")} products stored`,
    "",
    markdownTable(
      ["server", "instructions a GET"],
      [false, true],
      names.map((name) => [name, perRequest((counts.get(name) as Counted).total)]),
    ),
    ...differences("handler", "fastify", counts),
    ...differences("handler, rate limits", "handler", counts),
    ...differences("npm start", "npm start, log and metrics off", counts),
  ].join("\n"),
);
process.exit(0);
