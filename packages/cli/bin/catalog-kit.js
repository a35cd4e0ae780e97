#!/usr/bin/env node
// The `catalog-kit` command: the built CLI, or, in a checkout that was not built, its TypeScript
// source run through tsx.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

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
