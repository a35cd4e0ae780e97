// Runs every scenario, each in its own process, and writes RESULTS.md and results.json.
// `npm run bench` for the full run; `npm run bench -- --quick` for the small one CI runs;
// `npm run bench -- --only STORAGE` for the scenarios with rows on that storage, narrowed to them;
// `npm run bench -- --ab REF` to compare this tree with REF (ab.ts).
import { mkdirSync, writeFileSync } from "node:fs";
import { runAb } from "./ab.ts";
import { describeMachine, machineLine } from "./machine.ts";
import { benchOptions } from "./options.ts";
import { type JudgedRow, judge, type Row, toMarkdownReport, toMarkdownTable } from "./report.ts";
import { missingFor, SCENARIOS, type Scenario, startScenario } from "./scenario-list.ts";

const { quick, only } = benchOptions();
const here = new URL(".", import.meta.url);

function runScenario(scenario: Scenario, rows: Row[]): Promise<number> {
  const narrowed = only?.flatMap((word) => ["--only", word]) ?? [];
  return startScenario(scenario, here, [...(quick ? ["--quick"] : []), ...narrowed], (message) => {
    if (message.type === "progress") console.log(`  [${scenario.name}] ${message.text}`);
    else {
      rows.push(message.row);
      const { ratio, baseline } = judge(message.row);
      const figure =
        message.row.figure === null ? "not available" : `${Math.round(message.row.figure)} ${message.row.unit}`;
      const against = ratio === null ? "" : ` (${ratio.toFixed(2)}x ${baseline?.label ?? "the baseline"})`;
      console.log(`  [${scenario.name}] ${message.row.name}: ${figure}${against}`);
    }
  }).exit;
}

async function runAll(): Promise<void> {
  const machine = describeMachine();
  console.log(
    `catalog-kit bench (${quick ? "quick" : "full"}): ${machine.cpu}, ${machine.cores} cores, Node ${machine.node}`,
  );
  const rows: Row[] = [];
  const failed: string[] = [];
  const started = Date.now();
  // `--only STORAGE`: the scenarios whose own `--only` knows that storage, each narrowed to it.
  const unknown = only?.filter((word) => !SCENARIOS.some((scenario) => scenario.storages?.includes(word))) ?? [];
  if (unknown.length > 0) {
    throw new Error(
      `--only ${unknown.join(", ")}: not a storage of any scenario; to narrow one scenario, run its script (README: "One case, or a profile")`,
    );
  }
  const picked = SCENARIOS.filter((scenario) => only?.some((word) => scenario.storages?.includes(word)) ?? true);
  for (const scenario of picked) {
    const missing = missingFor(scenario, here);
    if (missing.length > 0) {
      console.log(`- ${scenario.name}: not available (missing ${missing.join(", ")})`);
      for (const named of scenario.unavailable)
        rows.push({ ...named, figure: null, unit: "", note: "not available yet" });
      continue;
    }
    console.log(`- ${scenario.name}`);
    const code = await runScenario(scenario, rows);
    if (code !== 0) {
      failed.push(scenario.name);
      rows.push({
        name: `${scenario.name} scenario`,
        scenario: `${scenario.name} scenario (${scenario.file})`,
        figure: null,
        unit: "",
        note: `failed with exit code ${code}`,
      });
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
so it can differ a little from the quotient of the two medians. Produced by \`npm run bench${quick || only !== undefined ? " --" : ""}${quick ? " --quick" : ""}${only?.map((word) => ` --only ${word}`).join("") ?? ""}\` in ${seconds} s.

- Machine: ${machineLine(machine)}
- Node ${machine.node}; ${packages}
- Date: ${new Date().toISOString()}

${toMarkdownReport(judged)}
`;
  // A narrowed run never overwrites the full run's files.
  const outDir = quick || only !== undefined ? new URL("results/", here) : here;
  mkdirSync(outDir, { recursive: true });
  const narrowedTo = only === undefined ? "" : `only-${only.join("-")}`;
  const base = quick ? ["quick", narrowedTo].filter((part) => part !== "").join("-") : narrowedTo || "RESULTS";
  writeFileSync(new URL(`${base}.md`, outDir), markdown);
  writeFileSync(
    new URL(quick || only !== undefined ? `${base}.json` : "results.json", outDir),
    `${JSON.stringify({ quick, date: new Date().toISOString(), seconds, machine, rows: judged }, null, 2)}\n`,
  );
  console.log(`\n${toMarkdownTable(judged)}\n`);
  console.log(`Written to ${new URL(`${base}.md`, outDir).pathname.replace(new URL("..", here).pathname, "")}`);
  if (failed.length > 0) {
    console.error(`Scenarios that failed: ${failed.join(", ")}`);
    process.exitCode = 1;
  }
}

// `--ab REF`: the same scenarios on REF and on this tree, alternating (ab.ts).
if (process.argv.includes("--ab")) await runAb();
else await runAll();
