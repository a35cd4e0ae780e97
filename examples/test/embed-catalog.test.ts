import { expect, it } from "vitest";
import { runExample } from "./support/run-example.ts";

it("embed-catalog.ts imports JSON and CSV, reads, deletes and reports invalid input", async () => {
  const { stdout, stderr } = await runExample("embed-catalog.ts");
  expect(stderr).toBe("");
  const lines = stdout.split("\n");
  const json = (prefix: string) =>
    JSON.parse((lines.find((line) => line.startsWith(prefix)) as string).slice(prefix.length));
  // Each import answers the id of its record in the site's history.
  const importId = expect.stringMatching(/^[0-9a-f]{28}$/);
  const counts = { dryRun: false, importId };
  expect(json("JSON import: ")).toEqual({ total: 2, created: 2, updated: 0, unchanged: 0, ...counts });
  expect(json("CSV import: ")).toEqual({ total: 2, created: 1, updated: 1, unchanged: 0, ...counts });
  expect(json("Get by sku: ")).toMatchObject({ id: "cap-1", title: 'Cap "classic"' });
  expect(json("Get by id: ")).toMatchObject({ id: "tee-1", sku: "TEE-BLUE-M" });
  expect(stdout).toContain("Deleted: tee-1");
  expect(stdout).toContain("Rejected: VALIDATION_FAILED");
  expect(stdout).toContain("/products/0/available: Must be true or false");
});
