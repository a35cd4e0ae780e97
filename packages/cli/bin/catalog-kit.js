#!/usr/bin/env node
// The `catalog-kit` command: the built CLI, or, in a checkout that was not built, its TypeScript
// source run through tsx.
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

// The parent's process id now: from /proc where there is one (process.ppid is the one at start),
// else the one at start while it lives, else 1.
function parentPid() {
  try {
    const stat = readFileSync("/proc/self/stat", "utf8");
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
  } catch {
    try {
      process.kill(process.ppid, 0);
      return process.ppid;
    } catch {
      return 1;
    }
  }
}

// npm (npx, npm exec, npm run) runs the command under a shell and, on SIGTERM, signals that shell
// only, which dies without passing it on: run by npm, the command takes its parent's end for a
// SIGTERM, so that it never outlives npm. Run otherwise (nohup, a service), it is left alone.
if (process.env.npm_command !== undefined) {
  const parent = process.ppid;
  const watch = setInterval(() => {
    if (parentPid() === parent) return;
    clearInterval(watch);
    process.kill(process.pid, "SIGTERM");
  }, 500);
  watch.unref();
}

const built = new URL("../dist/main.js", import.meta.url);
if (existsSync(built)) {
  const { main } = await import(built.href);
  process.exitCode = await main(process.argv.slice(2));
} else {
  const source = fileURLToPath(new URL("../src/main.ts", import.meta.url));
  const child = spawn(
    process.execPath,
    ["--conditions=@catalog-kit/source", "--import", "tsx", source, ...process.argv.slice(2)],
    { stdio: "inherit" },
  );
  for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
  child.on("exit", (code, signal) => {
    process.exitCode = code ?? (signal ? 1 : 0);
  });
}
