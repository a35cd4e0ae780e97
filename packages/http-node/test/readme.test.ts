import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFile, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { promisify } from "node:util";
import {
  type CliProcess,
  docSteps,
  expectedFor,
  parseCurl,
  performCurl,
  ROOT,
  startCli,
  stopCli,
} from "@catalog-kit/test-support/http";
import { afterAll, expect, it } from "vitest";

const DOC_URL = "http://127.0.0.1:3000";
const readme = await readFile(new URL("../README.md", import.meta.url), "utf8");
let server: CliProcess | undefined;
afterAll(() => server && stopCli(server));

it("README.md: every curl of the tour answers, in demo mode, what the README shows", async () => {
  server = startCli();
  const out = await server.waitForOutput(/Access token: \S+\n[\s\S]*listening|listening[\s\S]*Access token: \S+\n/);
  const url = /listening on (http:\S+)/.exec(out)?.[1] as string;
  const token = /Access token: (\S+)/.exec(out)?.[1] as string;
  const steps = docSteps(readme);
  expect(steps.length).toBeGreaterThanOrEqual(9);
  // The compressed import runs too, on a file the tour has shown by then.
  expect(steps.filter(({ files }) => files["-"] !== undefined)).toHaveLength(1);
  for (const { command, expected, status, files } of steps) {
    expect(command).toContain(DOC_URL);
    const response = await performCurl(parseCurl(command.replaceAll(DOC_URL, url).replaceAll("$TOKEN", token), files));
    const body = await response.json();
    expect({ command, status: response.status }).toEqual({ command, status });
    if (expected !== undefined) expect(body).toEqual(expectedFor(expected, response.headers.get("x-request-id"), body));
  }
  // The conditional GET is shown with the answer's head, not a JSON body: its status and ETag are checked.
  const [, shown, head] =
    /^```bash\n(curl [^\n]*If-None-Match[^\n]*)\n```\n+```http\n([\s\S]*?)```/m.exec(readme) ?? [];
  const conditional = await performCurl(
    parseCurl((shown as string).replaceAll(DOC_URL, url).replaceAll("$TOKEN", token)),
  );
  const [statusLine, etagLine] = (head as string).trim().split("\n");
  expect(statusLine).toBe(`HTTP/1.1 ${conditional.status} Not Modified`);
  expect(etagLine).toBe(`etag: ${conditional.headers.get("etag")}`);
});

it("README.md: the own-server snippet starts one server on its port and closes it", async () => {
  const section = readme.slice(readme.indexOf("\n## Use it in your own server\n"));
  const snippet = /^```ts\n([\s\S]*?)^```$/m.exec(section)?.[1] ?? "";
  expect(snippet).toContain("createCatalogHandler");
  // A port no one holds, so that only the snippet's own listening can collide with itself.
  const port = await new Promise<number>((resolve) => {
    const probe = createServer().listen(0, "127.0.0.1", () => {
      resolve((probe.address() as AddressInfo).port);
      probe.close();
    });
  });
  const program = `${snippet.replaceAll("3000", String(port))}\nawait server.close();\nconsole.log("closed");\n`;
  const file = join(ROOT, `snippet-${randomBytes(4).toString("hex")}.ts`);
  await writeFile(file, program);
  try {
    const { stdout } = await promisify(execFile)("npx", ["tsx", "--conditions=@catalog-kit/source", file], {
      cwd: ROOT,
      env: { ...process.env, SHOP_TOKEN: "a-token-of-the-snippet" },
      timeout: 60_000,
    });
    expect(stdout).toBe("closed\n");
  } finally {
    await rm(file, { force: true });
  }
}, 90_000);
