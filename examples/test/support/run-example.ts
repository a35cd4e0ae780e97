import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";

const EXAMPLES = fileURLToPath(new URL("../../", import.meta.url));

/** Runs an example file the way its npm script does (tsx with the source condition); resolves with its output. */
export function runExample(file: string): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ["--import", "tsx", "--conditions=@catalog-kit/source", file],
      { cwd: EXAMPLES, timeout: 30_000 },
      (error, stdout, stderr) =>
        error ? reject(new Error(`${file} failed: ${error.message}\n${stderr}`)) : resolve({ stdout, stderr }),
    );
  });
}
