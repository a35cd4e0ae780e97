// The scenarios of the bench and how one is started: its own process with its own node arguments,
// so that one scenario's heap never slows the next. run.ts and the A/B runner (ab.ts) share this, so
// that an A/B measures each scenario exactly as the full run does.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { createInterface } from "node:readline";
import type { Message, Row } from "./report.ts";

/** A scenario of the bench: its script, how node runs it, and what it needs. */
export interface Scenario {
  readonly name: string;
  readonly file: string;
  readonly nodeArgs: readonly string[];
  /** Source files that must exist for the scenario to run; otherwise its rows say "not available". */
  readonly requires: readonly string[];
  /** Programs that must be on PATH, likewise. */
  readonly commands?: readonly string[];
  /** The storages its own `--only` narrows it to: `npm run bench -- --only STORAGE` runs it so. */
  readonly storages?: readonly string[];
  /** The rows reported when it cannot run: a short name and the full scenario of each. */
  readonly unavailable: readonly Pick<Row, "name" | "scenario">[];
}

/** Every scenario, in the order a run takes them. */
export const SCENARIOS: readonly Scenario[] = [
  { name: "import", file: "scenarios/import.ts", nodeArgs: ["--expose-gc"], requires: [], unavailable: [] },
  { name: "ops", file: "scenarios/ops.ts", nodeArgs: ["--expose-gc"], requires: [], unavailable: [] },
  {
    name: "heap",
    file: "scenarios/heap.ts",
    nodeArgs: ["--expose-gc", "--max-old-space-size=8192"],
    requires: [],
    unavailable: [],
  },
  {
    name: "redis",
    file: "scenarios/redis.ts",
    nodeArgs: ["--expose-gc"],
    requires: ["../packages/adapter-redis/src/index.ts"],
    commands: ["redis-server", "redis-cli", "redis-benchmark"],
    unavailable: [
      { name: "bulk JSON, redis", scenario: "bulk import into Redis (adapter-redis)" },
      { name: "longest script call, redis", scenario: "longest single Redis script call" },
    ],
  },
  {
    name: "replica",
    file: "scenarios/replica.ts",
    nodeArgs: ["--expose-gc"],
    requires: ["../packages/adapter-redis/src/index.ts"],
    commands: ["redis-server"],
    unavailable: [{ name: "waitForReplicas, redis + replica", scenario: "Redis with one replica" }],
  },
  {
    name: "http",
    file: "scenarios/http.ts",
    nodeArgs: [],
    storages: ["memory", "redis", "postgres", "sqlite"],
    requires: ["../packages/http-node/src/index.ts"],
    unavailable: [
      { name: "GET by id", scenario: "HTTP GET by id" },
      { name: "POST bulk 1,000", scenario: "HTTP POST bulk of 1,000" },
      { name: "POST CSV 1,000", scenario: "HTTP POST CSV of 1,000 rows" },
    ],
  },
  {
    name: "stream",
    file: "scenarios/stream.ts",
    nodeArgs: [],
    storages: ["memory", "redis", "postgres", "sqlite"],
    // The streamed body's reader: catalog-core's import modules were renamed since, and the
    // scenario must run against trees from before and after that.
    requires: ["../packages/http-node/src/body-stream.ts"],
    unavailable: [
      { name: "stream NDJSON", scenario: "streamed NDJSON import over HTTP" },
      { name: "stream CSV", scenario: "streamed CSV import over HTTP" },
    ],
  },
  {
    name: "sync",
    file: "scenarios/sync.ts",
    nodeArgs: [],
    storages: ["memory", "redis", "postgres", "sqlite"],
    requires: ["../packages/http-node/src/browse.ts", "../packages/http-node/src/body-stream.ts"],
    unavailable: [
      { name: "export", scenario: "export of a site over HTTP (NDJSON, CSV)" },
      { name: "mode=replace", scenario: "full sync over HTTP (mode=replace)" },
      { name: "merge", scenario: "merge of a price-and-stock CSV over HTTP (mode=merge)" },
    ],
  },
];

export function onPath(command: string): boolean {
  return spawnSync(command, ["--version"], { stdio: "ignore" }).status === 0;
}

/** What keeps `scenario` from running in the bench folder `benchDir` (a URL ending in "/"): missing files and programs. */
export function missingFor(scenario: Scenario, benchDir: URL): string[] {
  return [
    ...[scenario.file, ...scenario.requires].filter((file) => !existsSync(new URL(file, benchDir))),
    ...(scenario.commands ?? []).filter((command) => !onPath(command)),
  ];
}

/** The node arguments that run `scenario` from its bench folder, then `extra` (--quick, --only, --size). */
export function scenarioArgs(scenario: Scenario, extra: readonly string[]): string[] {
  return [...scenario.nodeArgs, "--import", "tsx", "--conditions=@catalog-kit/source", scenario.file, ...extra];
}

/** A scenario's process: every line it prints as a message (a line that is not JSON as progress), and its exit code. */
export interface RunningScenario {
  readonly child: ChildProcess;
  readonly exit: Promise<number>;
}

/** Starts `scenario` in `benchDir`; tsx and the workspace packages resolve from that tree's node_modules. */
export function startScenario(
  scenario: Scenario,
  benchDir: URL,
  extra: readonly string[],
  onMessage: (message: Message) => void,
): RunningScenario {
  const child = spawn(process.execPath, scenarioArgs(scenario, extra), {
    cwd: benchDir,
    stdio: ["ignore", "pipe", "inherit"],
  });
  createInterface({ input: child.stdout }).on("line", (line) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {}
    const type = (parsed as { type?: unknown } | null)?.type;
    onMessage(type === "row" || type === "progress" ? (parsed as Message) : { type: "progress", text: line });
  });
  return { child, exit: new Promise((resolve) => child.on("close", (code) => resolve(code ?? 1))) };
}
