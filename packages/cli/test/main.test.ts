// The command's own surface: its version, and a help for the command and each of its commands
// that starts nothing, reads nothing and exits 0; a wrong call's usage, exit code 2.
import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { runCli, runCliProcess } from "./support/run-cli.ts";

describe("catalog-kit --version and help", () => {
  it("prints the package's version", async () => {
    const { version } = JSON.parse(await readFile(new URL("../package.json", import.meta.url), "utf8"));
    // As a process: the command as it is run, from its first line to its exit code.
    const { code, stdout } = await runCliProcess(["--version"]);
    expect(code).toBe(0);
    expect(stdout).toBe(`${version}\n`);
  });

  it("prints the overview for help, --help and -h", async () => {
    for (const args of [["help"], ["--help"], ["-h"]]) {
      const { code, stdout, stderr } = await runCli(args);
      expect(code).toBe(0);
      expect(stdout).toContain("Usage: catalog-kit COMMAND");
      expect(stdout).toContain("Exit codes:");
      expect(stderr).toBe("");
    }
  });

  it("serve --help prints the help of serve and starts no server", async () => {
    // With PORT taken from the environment, a server started by mistake would run until killed.
    const { code, stdout, stderr } = await runCliProcess(["serve", "--help"], {
      env: { PORT: "0" },
      timeoutMs: 20_000,
    });
    expect(code).toBe(0);
    expect(stdout).toContain("Usage: catalog-kit serve");
    expect(stdout).not.toMatch(/listening/);
    expect(stderr).toBe("");
  });

  it.each([
    [["import", "--help"], "Usage: catalog-kit import FILE|-"],
    [["import", "catalog.csv", "-h"], "Usage: catalog-kit import FILE|-"],
    [["export", "--help"], "Usage: catalog-kit export [FILE|-]"],
    [["config", "check", "--help"], "Usage: catalog-kit config check FILE"],
    [["config", "--help"], "Usage: catalog-kit config check FILE"],
    [["help", "import"], "Usage: catalog-kit import FILE|-"],
    [["help", "config", "check"], "Usage: catalog-kit config check FILE"],
    [["sites", "--help"], "Usage: catalog-kit sites list|create TYPE/ID|delete TYPE/ID"],
    [["help", "tokens"], "Usage: catalog-kit tokens list|create|revoke ID"],
  ])("%j prints its own help, exit 0", async (args, usage) => {
    const { code, stdout, stderr } = await runCli(args);
    expect(stderr).toBe("");
    expect(code).toBe(0);
    expect(stdout.startsWith(usage)).toBe(true);
  });

  it("refuses a call it cannot make with the command's usage on standard error and exit code 2", async () => {
    // As a process: its exit code, not only what main returns.
    const unknown = await runCliProcess(["frobnicate"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("Unknown command: frobnicate");
    expect(unknown.stderr).toContain("Usage: catalog-kit COMMAND");
    const wrong = await runCli(["export", "--bogus"]);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain("Usage: catalog-kit export");
    expect(wrong.stdout).toBe("");
    expect((await runCli(["serve", "now"])).code).toBe(2);
    expect((await runCli(["help", "frobnicate"])).code).toBe(2);
  });
});
