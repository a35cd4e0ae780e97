// The root README's first recipe, "Change prices and stock", run as written against `npm start`
// in demo mode: every curl answers the JSON shown, the If-Match it sends holds the ETag the text
// names, and what the text says of the ETag after it (a 412 again, a 304 on GET) holds.
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
const readme = await readFile(new URL("../README.md", import.meta.url), "utf8");
const start = readme.indexOf("\n## Change prices and stock\n");
const recipe = readme.slice(start, readme.indexOf("\n## ", start + 1));
let server: CliProcess | undefined;
afterAll(() => server && stopCli(server));

it("README.md: the first recipe comes right after the set-up commands, and every curl answers what it shows", async () => {
  expect(readme.indexOf("\n## ")).toBe(start);
  expect(readme.slice(0, start)).toContain("npm install && npm start");
  server = startCli();
  const out = await server.waitForOutput(/Access token: \S+\n[\s\S]*listening|listening[\s\S]*Access token: \S+\n/);
  const url = /listening on (http:\S+)/.exec(out)?.[1] as string;
  const token = /Access token: (\S+)/.exec(out)?.[1] as string;
  const steps = docSteps(recipe);
  expect(steps).toHaveLength(3);
  let last: Response | undefined;
  for (const { command, expected, status, files } of steps) {
    const request = parseCurl(command.replaceAll(DOC_URL, url).replaceAll("$TOKEN", token), files);
    last = await performCurl(request);
    expect({ command, status: last.status }).toEqual({ command, status });
    const body = await last.clone().json();
    expect(body).toEqual(expectedFor(expected, last.headers.get("x-request-id"), body));
  }
  // The tags the text names: the one the PATCH sent, then the one its answer carries.
  const [before, after] = [...recipe.matchAll(/`ETag: ("[^"]+")`|is now `("[^"]+")`/g)].map(([, a, b]) => a ?? b);
  const patch = parseCurl(steps[2]?.command.replaceAll(DOC_URL, url).replaceAll("$TOKEN", token) as string);
  expect(patch.headers["if-match"]).toBe(before);
  expect(last?.headers.get("etag")).toBe(after);
  expect((await performCurl(patch)).status).toBe(412);
  const headers = { "x-service-access-token": token, "if-none-match": after as string };
  const full = await fetch(`${url}/external/product/v1/MUG-1?view=full`, { headers });
  expect(full.status).toBe(304);
  expect(full.headers.get("etag")).toBe(after);
});
