// The "before" tree of an A/B: REF checked out as a detached git worktree in a temporary folder,
// with this tree's bench/ copied over its own and its dependencies installed; removed at the end,
// on failure and on Ctrl-C too (the caller calls `remove`, which may run more than once).
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, sep } from "node:path";

/** Files of bench/ that are outputs or installs, not the harness: never copied, never removed. */
const NOT_HARNESS = new Set(["node_modules", "results", "profiles"]);

/** Runs git in `cwd` and returns its trimmed output; throws with git's message when it fails. */
export function git(cwd: string, args: readonly string[]): string {
  const result = spawnSync("git", args, { cwd, encoding: "utf8" });
  if (result.status !== 0) {
    throw new Error(
      `git ${args.join(" ")}: ${result.stderr.trim() || result.error?.message || `exit code ${result.status}`}`,
    );
  }
  return result.stdout.trim();
}

/** The commit REF names in the repository at `root`, or a readable error. */
export function resolveRef(root: string, ref: string): string {
  try {
    return git(root, ["rev-parse", "--verify", "--quiet", `${ref}^{commit}`]);
  } catch {
    throw new Error(`"${ref}" names no commit in this repository`);
  }
}

/** Whether `file` (relative to the repository's root) exists in `commit`. */
export function existsAt(root: string, commit: string, file: string): boolean {
  return spawnSync("git", ["cat-file", "-e", `${commit}:${file}`], { cwd: root, stdio: "ignore" }).status === 0;
}

export interface Worktree {
  /** The worktree's root folder. */
  readonly dir: string;
  /** Removes the worktree and its temporary folder; safe to call again. */
  remove(): void;
}

/** `git worktree add --detach` of `commit` into a fresh temporary folder (the worktree is its `before/`). */
export function addWorktree(root: string, commit: string): Worktree {
  const parent = mkdtempSync(join(tmpdir(), "catalog-bench-ab-"));
  const dir = join(parent, "before");
  let removed = false;
  const remove = () => {
    if (removed) return;
    removed = true;
    // --force: node_modules and the scenario's leftovers are untracked files.
    spawnSync("git", ["worktree", "remove", "--force", dir], { cwd: root, stdio: "ignore" });
    rmSync(parent, { recursive: true, force: true });
    spawnSync("git", ["worktree", "prune"], { cwd: root, stdio: "ignore" });
  };
  try {
    git(root, ["worktree", "add", "--detach", dir, commit]);
  } catch (error) {
    remove();
    throw error;
  }
  return { dir, remove };
}

/**
 * Replaces the worktree's bench/ by this tree's, so that both sides run the same harness (same
 * cases, same rows, the same filters) and only the packages differ.
 */
export function copyBench(fromBench: string, toBench: string): void {
  for (const entry of readdirSync(toBench)) {
    if (!NOT_HARNESS.has(entry)) rmSync(join(toBench, entry), { recursive: true, force: true });
  }
  cpSync(fromBench, toBench, {
    recursive: true,
    filter: (source) => {
      const [first = ""] = relative(fromBench, source).split(sep);
      return !NOT_HARNESS.has(first) && !source.endsWith(".cpuprofile");
    },
  });
}

/** Runs a command with the terminal's output, telling `track` the child (so Ctrl-C can reach it); resolves with its exit code. */
export function runCommand(
  command: string,
  args: readonly string[],
  cwd: string,
  track: (child: ChildProcess | undefined) => void,
): Promise<number> {
  const child = spawn(command, args, { cwd, stdio: ["ignore", "inherit", "inherit"] });
  track(child);
  return new Promise((resolve) => {
    child.once("error", () => resolve(127));
    child.once("close", (code) => resolve(code ?? 1));
  }).finally(() => track(undefined)) as Promise<number>;
}
