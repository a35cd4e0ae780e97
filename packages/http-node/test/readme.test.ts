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
import { afterAll, expect, it } from "vitest";

const DOC_URL = "http://127.0.0.1:3000";
let server: CliProcess | undefined;
afterAll(() => server && stopCli(server));

it("README.md: every curl of the tour answers, in demo mode, what the README shows", async () => {
  server = startCli();
  const out = await server.waitForOutput(/Access token: \S+\n[\s\S]*listening|listening[\s\S]*Access token: \S+\n/);
  const url = /listening on (http:\S+)/.exec(out)?.[1] as string;
  const token = /Access token: (\S+)/.exec(out)?.[1] as string;
  const steps = docSteps(await readFile(new URL("../README.md", import.meta.url), "utf8"));
  expect(steps.length).toBeGreaterThanOrEqual(9);
  for (const { command, expected, status, files } of steps) {
    expect(command).toContain(DOC_URL);
    const response = await performCurl(parseCurl(command.replaceAll(DOC_URL, url).replaceAll("$TOKEN", token), files));
    const body = await response.json();
    expect({ command, status: response.status }).toEqual({ command, status });
    if (expected !== undefined) expect(body).toEqual(expectedFor(expected, response.headers.get("x-request-id")));
  }
});
