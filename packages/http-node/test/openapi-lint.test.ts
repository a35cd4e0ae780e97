// Runs Redocly's linter, at its recommended rules, on the document /openapi.json serves: an error
// or a warning fails the test. A broken copy shows that the linter really runs and is read.
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildOpenApi } from "../src/openapi.ts";

const REDOCLY = fileURLToPath(new URL("../../../node_modules/.bin/redocly", import.meta.url));

interface LintReport {
  totals: { errors: number; warnings: number };
  problems: { ruleId: string; severity: string; message: string }[];
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "catalog-kit-openapi-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function lint(document: object, name: string): Promise<LintReport> {
  const file = join(dir, `${name}.json`);
  await writeFile(file, JSON.stringify(document, null, 2));
  // The exit status is not enough: warnings leave it 0. The JSON report counts both.
  const { stdout } = await promisify(execFile)(REDOCLY, ["lint", "--extends=recommended", "--format=json", file], {
    env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true", NO_COLOR: "1" },
    maxBuffer: 16 * 1024 * 1024,
  }).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? "" }));
  return JSON.parse(stdout) as LintReport;
}

describe("the OpenAPI document under Redocly's recommended rules", () => {
  for (const notFoundStatus of [400, 404] as const) {
    it(`has no error and no warning (notFoundStatus ${notFoundStatus})`, async () => {
      const report = await lint(
        buildOpenApi({ maxBodyBytes: 52_428_800, maxProductsPerRequest: 100_000, notFoundStatus }),
        `openapi-${notFoundStatus}`,
      );
      expect(report.problems.map(({ ruleId, message }) => `${ruleId}: ${message}`)).toEqual([]);
      expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
    }, 20_000);
  }

  it("fails a document without servers and with an example its schema refuses", async () => {
    const document = buildOpenApi({ maxBodyBytes: 1, maxProductsPerRequest: 1, notFoundStatus: 400 }) as {
      servers?: unknown;
      paths: Record<string, { get?: { responses: Record<string, { content: Record<string, { example: unknown }> }> } }>;
    };
    delete document.servers;
    const health = document.paths["/healthz"]?.get?.responses["200"]?.content["application/json"];
    if (health !== undefined) health.example = { status: 1 };
    const report = await lint(document, "broken");
    expect(report.totals.errors).toBeGreaterThan(0);
    expect(report.totals.warnings).toBeGreaterThan(0);
    expect(report.problems.map((problem) => problem.ruleId)).toEqual(
      expect.arrayContaining(["no-empty-servers", "no-invalid-media-type-examples"]),
    );
  }, 20_000);
});
