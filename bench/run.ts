// Runs every scenario, each in its own process, and writes RESULTS.md and results.json.
// `npm run bench` for the full run; `npm run bench -- --quick` for the small one CI runs.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { describeMachine } from "./machine.ts";
import { benchOptions } from "./options.ts";
import { type JudgedRow, judge, type Message, type Row, toMarkdownTable } from "./report.ts";

interface Scenario {
  readonly name: string;
  readonly file: string;
  readonly nodeArgs: readonly string[];
  /** Source files that must exist for the scenario to run; otherwise its rows say "not available". */
  readonly requires: readonly string[];
  /** Programs that must be on PATH, likewise. */
  readonly commands?: readonly string[];
  /** The rows reported when it cannot run. */
  readonly unavailable: readonly string[];
}

const { quick } = benchOptions();
const here = new URL(".", import.meta.url);

const SCENARIOS: readonly Scenario[] = [
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
    unavailable: ["bulk import into Redis (adapter-redis)", "longest single Redis script call"],
  },
  {
    name: "http",
    file: "scenarios/http.ts",
    nodeArgs: [],
    requires: ["../packages/http-node/src/index.ts"],
    unavailable: ["HTTP GET by id", "HTTP POST bulk of 1,000", "HTTP POST CSV of 1,000 rows"],
  },
  {
    name: "stream",
    file: "scenarios/stream.ts",
    nodeArgs: [],
    requires: ["../packages/http-node/src/body-stream.ts", "../packages/catalog-core/src/import-stream.ts"],
    unavailable: ["streamed NDJSON import over HTTP", "streamed CSV import over HTTP"],
  },
  {
    name: "sync",
    file: "scenarios/sync.ts",
    nodeArgs: [],
    requires: ["../packages/http-node/src/browse.ts", "../packages/http-node/src/body-stream.ts"],
    unavailable: ["export of a site over HTTP (NDJSON, CSV)", "full sync over HTTP (mode=replace)"],
  },
];

function onPath(command: string): boolean {
  return spawnSync(command, ["--version"], { stdio: "ignore" }).status === 0;
}

function runScenario(scenario: Scenario, rows: Row[]): Promise<number> {
  const args = [...scenario.nodeArgs, "--import", "tsx", "--conditions=@catalog-kit/source", scenario.file];
  if (quick) args.push("--quick");
  const child = spawn(process.execPath, args, { cwd: here, stdio: ["ignore", "pipe", "inherit"] });
  createInterface({ input: child.stdout }).on("line", (line) => {
    let message: Message;
    try {
      message = JSON.parse(line) as Message;
    } catch {
      console.log(`  [${scenario.name}] ${line}`);
      return;
    }
    if (message.type === "progress") console.log(`  [${scenario.name}] ${message.text}`);
    else {
      rows.push(message.row);
      const { ratio } = judge(message.row);
      const figure =
        message.row.figure === null ? "not available" : `${Math.round(message.row.figure)} ${message.row.unit}`;
      console.log(
        `  [${scenario.name}] ${message.row.scenario}: ${figure}${ratio === null ? "" : ` (${ratio.toFixed(2)}x)`}`,
      );
    }
  });
  return new Promise((resolve) => child.on("close", (code) => resolve(code ?? 1)));
}

const machine = describeMachine();
console.log(
  `catalog-kit bench (${quick ? "quick" : "full"}): ${machine.cpu}, ${machine.cores} cores, Node ${machine.node}`,
);
const rows: Row[] = [];
const failed: string[] = [];
const started = Date.now();
for (const scenario of SCENARIOS) {
  const missing = [
    ...[scenario.file, ...scenario.requires].filter((file) => !existsSync(new URL(file, here))),
    ...(scenario.commands ?? []).filter((command) => !onPath(command)),
  ];
  if (missing.length > 0) {
    console.log(`- ${scenario.name}: not available (missing ${missing.join(", ")})`);
    for (const name of scenario.unavailable)
      rows.push({ scenario: name, figure: null, unit: "", note: "not available yet" });
    continue;
  }
  console.log(`- ${scenario.name}`);
  const code = await runScenario(scenario, rows);
  if (code !== 0) {
    failed.push(scenario.name);
    rows.push({ scenario: `${scenario.name} scenario`, figure: null, unit: "", note: `failed with exit code ${code}` });
  }
}

// Targets are set for the full sizes; quick figures are too small and too cold to judge.
const judged: JudgedRow[] = rows.map((row) => (quick ? { ...judge(row), met: null } : judge(row)));
const seconds = Math.round((Date.now() - started) / 1000);
const packages = Object.entries(machine.packages)
  .map(([name, version]) => `${name} ${version}`)
  .join(", ");
const markdown = `# Benchmark results

${quick ? "Quick run (small sizes, short rounds): figures are indicative only and targets are not judged." : "Full run."}
Every baseline was measured in the same run as the figure beside it, alternating rounds; a figure
is the median of its rounds, and a ratio (figure / baseline) is the median of the per-round ratios,
so it can differ a little from the quotient of the two medians. Produced by \`npm run bench${quick ? " -- --quick" : ""}\` in ${seconds} s.

- Machine: ${machine.cpu}, ${machine.cores} cores, ${machine.memoryGiB} GiB, ${machine.os}
- Node ${machine.node}; ${packages}
- Date: ${new Date().toISOString()}

${toMarkdownTable(judged)}
`;
const outDir = quick ? new URL("results/", here) : here;
mkdirSync(outDir, { recursive: true });
const base = quick ? "quick" : "RESULTS";
writeFileSync(new URL(`${base}.md`, outDir), markdown);
writeFileSync(
  new URL(quick ? "quick.json" : "results.json", outDir),
  `${JSON.stringify({ quick, date: new Date().toISOString(), seconds, machine, rows: judged }, null, 2)}\n`,
);
console.log(`\n${toMarkdownTable(judged)}\n`);
console.log(`Written to ${new URL(`${base}.md`, outDir).pathname.replace(new URL("..", here).pathname, "")}`);
if (failed.length > 0) {
  console.error(`Scenarios that failed: ${failed.join(", ")}`);
  process.exitCode = 1;
}
