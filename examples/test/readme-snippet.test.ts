// The root README's "Use it in-process" snippet, saved in the repository's root and run by the
// command the README gives, in a child process, prints what the README shows.
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { ROOT, withShownImportIds } from "@catalog-kit/test-support/http";
import { expect, it } from "vitest";

const readme = await readFile(join(ROOT, "README.md"), "utf8");
const section = readme.slice(readme.indexOf("\n## Use it in-process\n"));
const block = (lang: string) => new RegExp(`^\`\`\`${lang}\\n([\\s\\S]*?)^\`\`\`$`, "m").exec(section)?.[1] ?? "";

it("README.md: the in-process snippet runs as the README says, from the repository's root, and prints what it shows", async () => {
  const [snippet, command, output] = [block("ts"), block("sh").trim(), block("text")];
  expect(snippet).toContain("createCatalog");
  expect(command).toMatch(/ snippet\.ts$/);
  // A name of its own, so that a snippet.ts of someone's is never overwritten.
  const file = `snippet-${randomBytes(4).toString("hex")}.ts`;
  await writeFile(join(ROOT, file), snippet);
  try {
    const [program, ...args] = command.replace(/snippet\.ts$/, file).split(" ");
    const { stdout, stderr } = await promisify(execFile)(program as string, args, { cwd: ROOT, timeout: 60_000 });
    expect(stderr).toBe("");
    expect(withShownImportIds(stdout, output)).toBe(output);
  } finally {
    await rm(join(ROOT, file), { force: true });
  }
}, 90_000);
