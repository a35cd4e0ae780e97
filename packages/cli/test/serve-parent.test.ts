// `npx catalog-kit serve`: npm runs the command under a shell, and on SIGTERM it signals that
// shell only, which dies without passing the signal on. The server must not outlive them.
import { spawn } from "node:child_process";
import { connect } from "node:net";
import { fileURLToPath } from "node:url";
import { afterEach, expect, it } from "vitest";

const BIN = fileURLToPath(new URL("../bin/catalog-kit.js", import.meta.url));
// A parent that starts the command and, on SIGTERM, dies as a shell does: without a word to it.
const PARENT = `require("node:child_process").spawn(process.execPath, [${JSON.stringify(BIN)}, "serve"], { stdio: "inherit" });`;

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

const refused = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(false);
    });
    socket.once("error", () => resolve(true));
  });

it("stops the server when the npm process that started it is gone", async () => {
  const parent = spawn(process.execPath, ["-e", PARENT], {
    // What npm sets for the command it runs (npx, npm exec).
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", PORT: "0", npm_command: "exec" },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let out = "";
  parent.stdout.on("data", (chunk: Buffer) => {
    out += chunk.toString();
  });
  // Every process that holds the output, the server's included, has ended once it closes.
  const outputClosed = new Promise<void>((resolve) => parent.stdout.once("close", () => resolve()));
  // A group of their own, so that a failed test leaves none of them behind.
  cleanups.push(() => {
    try {
      process.kill(-(parent.pid as number), "SIGKILL");
    } catch {}
  });

  const started = Date.now();
  while (!/listening on http:\/\/127\.0\.0\.1:(\d+)/.test(out)) {
    if (Date.now() - started > 30_000) throw new Error(`The server did not start:\n${out}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const port = Number(/listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(out)?.[1]);
  expect(await refused(port)).toBe(false);

  parent.kill("SIGTERM");
  const ended = await Promise.race([
    outputClosed.then(() => "ended"),
    new Promise((resolve) => setTimeout(() => resolve("still running"), 10_000)),
  ]);
  expect(ended).toBe("ended");
  expect(await refused(port)).toBe(true);
  expect(out).toContain("Stopped");
}, 60_000);
