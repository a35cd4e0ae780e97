import { readFile } from "node:fs/promises";
import {
  type CliProcess,
  docSteps,
  expectedFor,
  parseCurl,
  performCurl,
  startCli,
  stopCli,
} from "@catalog-kit/test-support/http";
import { afterAll, beforeAll, expect, it } from "vitest";

const DOC_URL = "http://127.0.0.1:3000";

let server: CliProcess;
let url: string;
beforeAll(async () => {
  server = startCli({ CATALOG_CONFIG: "examples/catalog.config.json" });
  url = /listening on (http:\S+)/.exec(await server.waitForOutput(/listening on http:\S+\n/))?.[1] as string;
});
afterAll(() => stopCli(server));

it("standalone-server.md: every curl answers what the document shows", async () => {
  const steps = docSteps(await readFile(new URL("../standalone-server.md", import.meta.url), "utf8"));
  expect(steps.length).toBeGreaterThanOrEqual(6);
  for (const { command, expected, status } of steps) {
    expect(command).toContain(DOC_URL);
    const response = await performCurl(parseCurl(command.replaceAll(DOC_URL, url)));
    const body = await response.json();
    expect({ command, status: response.status }).toEqual({ command, status });
    if (expected !== undefined) expect(body).toEqual(expectedFor(expected, response.headers.get("x-request-id"), body));
  }
  server.child.kill("SIGTERM");
  expect(await server.exited).toBe(0);
});
