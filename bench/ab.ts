// Same-run A/B: the bench's scenarios on a git ref ("before") and on this working tree ("after"),
// alternating in one session on one machine, so that a change to a hot path is read as ratios
// rather than against figures of another day. The ref is checked out as a temporary worktree, this
// tree's bench/ is copied over its own (one harness, two sets of packages), and each scenario runs
// exactly as run.ts runs it, in its own process, from its own tree's bench folder.
// `npm run bench -- --ab REF [--only SCENARIO[:FILTER],...] [--rounds N] [--quick] [--dry-run]`
import type { ChildProcess } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { type Collected, compare, type Side, toAbTable, WORSE_BELOW } from "./ab/compare.ts";
import { type AbOptions, abOptions, type Pick } from "./ab/options.ts";
import { addWorktree, copyBench, existsAt, git, resolveRef, runCommand, type Worktree } from "./ab/worktree.ts";
import { describeMachine, machineLine } from "./machine.ts";
import { formatNumber, judge, type Row } from "./report.ts";
import { missingFor, scenarioArgs, startScenario } from "./scenario-list.ts";

const afterBench = new URL(".", import.meta.url);
const afterRoot = fileURLToPath(new URL("..", afterBench));

interface Step {
  readonly round: number;
  readonly side: Side;
  readonly pick: number;
}

/**
 * Round after round, each scenario on both sides back to back, the side that goes first turning
 * every round (before-after, then after-before): a drift of the machine during the session falls
 * on both sides alike, and with an even number of rounds each side goes first equally often.
 */
function planOf({ picks, rounds }: AbOptions): Step[] {
  const steps: Step[] = [];
  for (let round = 0; round < rounds; round++) {
    const order: Side[] = round % 2 === 0 ? ["before", "after"] : ["after", "before"];
    for (let pick = 0; pick < picks.length; pick++) for (const side of order) steps.push({ round, side, pick });
  }
  return steps;
}

const extraOf = (pick: Pick, quick: boolean) => [...(quick ? ["--quick"] : []), ...pick.args, "--cpu-rows"];
const describePick = (pick: Pick) =>
  pick.filter === undefined ? pick.scenario.name : `${pick.scenario.name}:${pick.filter}`;

/** Files the scenario needs that the before side lacks: its bench is this one, its packages are REF's. */
function missingBefore(pick: Pick, commit: string): string[] {
  return pick.scenario.requires
    .map((file) => join("bench", file).replaceAll("\\", "/"))
    .filter((file) => !existsAt(afterRoot, commit, file));
}

function printPlan(options: AbOptions, commit: string, steps: readonly Step[]): void {
  const tmp = join("$TMPDIR", "catalog-bench-ab-XXXXXX", "before");
  console.log(`git worktree add --detach ${tmp} ${commit}`);
  console.log(`copy bench/ over ${tmp}/bench/ (not node_modules, results, profiles)`);
  console.log(`(cd ${tmp} && npm install --no-audit --no-fund)`);
  for (const step of steps) {
    const pick = options.picks[step.pick] as Pick;
    const cwd = step.side === "before" ? `${tmp}/bench` : "bench";
    const args = scenarioArgs(pick.scenario, extraOf(pick, options.quick)).join(" ");
    console.log(`round ${step.round + 1} ${step.side.padEnd(6)} (cd ${cwd} && node ${args})`);
  }
  console.log(`git worktree remove --force ${tmp}`);
  for (const pick of options.picks) {
    const before = missingBefore(pick, commit);
    const after = missingFor(pick.scenario, afterBench);
    if (before.length > 0) console.log(`! ${pick.scenario.name} would not run before: ${before.join(", ")} missing`);
    if (after.length > 0) console.log(`! ${pick.scenario.name} would not run after: ${after.join(", ")} missing`);
  }
}

/** Runs the A/B the command line asks for; sets the exit code (2 bad usage, 1 failures or missing rows, 130 interrupted). */
export async function runAb(): Promise<void> {
  let options: AbOptions;
  let commit: string;
  try {
    options = abOptions(process.argv.slice(2));
    commit = resolveRef(afterRoot, options.ref);
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    process.exitCode = 2;
    return;
  }
  const steps = planOf(options);
  const afterHead = git(afterRoot, ["rev-parse", "HEAD"]);
  const dirty = git(afterRoot, ["status", "--porcelain", "--", "packages"]) !== "";
  const after = `${afterHead.slice(0, 10)}${dirty ? " + uncommitted changes under packages/" : ""}`;
  const picked = options.picks.map(describePick).join(",");
  const command = `npm run bench -- --ab ${options.ref} --only ${picked} --rounds ${options.rounds}${options.quick ? " --quick" : ""}`;
  console.log(`A/B: before ${options.ref} (${commit.slice(0, 10)}), after this tree (${after})`);
  console.log(`${command}\n${steps.length} scenario runs`);
  if (options.dryRun) {
    printPlan(options, commit, steps);
    return;
  }

  let worktree: Worktree | undefined;
  let current: ChildProcess | undefined;
  let interrupted = false;
  const track = (child: ChildProcess | undefined) => {
    current = child;
  };
  const onSignal = (signal: NodeJS.Signals) => {
    if (interrupted || current === undefined) {
      worktree?.remove();
      process.exit(130);
    }
    interrupted = true;
    console.error(`\n${signal}: stopping the running scenario, then removing the worktree`);
    current.kill(signal);
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  process.once("exit", () => worktree?.remove());

  const started = Date.now();
  const runs: Collected[] = [];
  try {
    worktree = addWorktree(afterRoot, commit);
    const beforeBench = join(worktree.dir, "bench");
    copyBench(fileURLToPath(afterBench), beforeBench);
    console.log(`- npm install in ${worktree.dir}`);
    const installed = await runCommand("npm", ["install", "--no-audit", "--no-fund"], worktree.dir, track);
    if (interrupted) return;
    if (installed !== 0) throw new Error(`npm install in the worktree exited with ${installed}`);
    const benchOf = (side: Side) => (side === "after" ? afterBench : pathToFileURL(`${beforeBench}/`));

    for (const step of steps) {
      const pick = options.picks[step.pick] as Pick;
      const tag = `round ${step.round + 1}/${options.rounds} ${step.side} ${describePick(pick)}`;
      const missing = missingFor(pick.scenario, benchOf(step.side));
      if (missing.length > 0) {
        console.log(`- ${tag}: not run (missing ${missing.join(", ")})`);
        runs.push({ ...step, rows: [], code: undefined, skipped: `missing ${missing.join(", ")}` });
        continue;
      }
      console.log(`- ${tag}`);
      const rows: Row[] = [];
      const running = startScenario(pick.scenario, benchOf(step.side), extraOf(pick, options.quick), (message) => {
        if (message.type === "progress") console.log(`  [${tag}] ${message.text}`);
        else {
          rows.push(message.row);
          const { figure, unit } = message.row;
          console.log(
            `  [${tag}] ${message.row.name}: ${figure === null ? "no figure" : `${formatNumber(figure)} ${unit}`}`,
          );
        }
      });
      track(running.child);
      const runStarted = Date.now();
      const code = await running.exit;
      track(undefined);
      const seconds = Math.round((Date.now() - runStarted) / 1000);
      console.log(`  [${tag}] ${code === 0 ? "done" : `exit code ${code}`} in ${seconds} s`);
      runs.push({ ...step, rows, code, seconds });
      if (interrupted) return;
    }
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    process.exitCode = 1;
    return;
  } finally {
    worktree?.remove();
    if (interrupted) process.exitCode = 130;
  }

  const compared = compare(runs, options.rounds);
  const table = toAbTable(compared);
  const failures = runs.filter((run) => run.code !== 0);
  const problems = compared.filter((row) => row.flags.some((flag) => flag !== "worse"));
  const machine = describeMachine();
  const seconds = Math.round((Date.now() - started) / 1000);
  const markdown = `# A/B: ${options.ref} against this tree

- Before: \`${options.ref}\` (${commit}), with this tree's bench/ (its packages are the ref's)
- After: this working tree (${after})
- \`${command}\`: ${options.rounds} round(s), each scenario before and after back to back, the first side turning every round; ${seconds} s
- Machine: ${machineLine(machine)}; Node ${machine.node}
- Date: ${new Date().toISOString()}${options.quick ? "\n- Quick sizes: indicative only." : ""}

A figure is the median of its rounds. **gain** is after/before where a higher figure is better
(rates) and before/after where a lower one is (MB, ms, µs per item): above 1 the after tree is
better. Rows under ${WORSE_BELOW}x are flagged **worse**. The gain per round compares the two runs
of a round, back to back: where they disagree (one above 1, one below), the difference is within
the machine's noise. The last column is each row's ratio to the baseline it measured in its own
process, which drifts with the machine far less than a figure does.

${table}
${failures.length === 0 ? "" : `\nScenario runs that failed or did not run: ${failures.map((run) => `round ${run.round + 1} ${run.side} ${describePick(options.picks[run.pick] as Pick)} (${run.skipped ?? `exit code ${run.code}`})`).join("; ")}\n`}`;
  const outDir = new URL("results/", afterBench);
  mkdirSync(outDir, { recursive: true });
  writeFileSync(new URL("ab.md", outDir), markdown);
  const judgedRuns = runs.map((run) => ({ ...run, rows: run.rows.map(judge) }));
  const json = { ref: options.ref, commit, after, command, seconds, machine, compared, runs: judgedRuns };
  writeFileSync(new URL("ab.json", outDir), `${JSON.stringify(json, null, 2)}\n`);
  console.log(`\n${table}\n\nWritten to bench/results/ab.md (and ab.json, with every row's notes)`);
  if (failures.length > 0 || problems.length > 0) {
    console.error(
      `${failures.length} scenario run(s) failed, ${problems.length} row(s) missing on a side or without a figure`,
    );
    process.exitCode = 1;
  }
}
