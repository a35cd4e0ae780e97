import { expect, it } from "vitest";
import { runExample } from "./support/run-example.ts";

it("custom-profile.ts reads an ERP's own file through a profile of its own, and refuses a misread price at its row", async () => {
  const { stdout, stderr } = await runExample("custom-profile.ts");
  expect(stderr).toBe("");
  const lines = stdout.split("\n");
  const json = (prefix: string) =>
    JSON.parse((lines.find((line) => line.startsWith(prefix)) as string).slice(prefix.length));
  expect(json("Import: ")).toEqual({
    total: 2,
    created: 2,
    updated: 0,
    unchanged: 0,
    dryRun: false,
    profile: "erp",
    ignoredColumns: ["Warehouse"],
    importId: expect.stringMatching(/^[0-9a-f]{28}$/),
  });
  expect(json("Tee: ")).toMatchObject({ id: "TEE", sku: "TEE-S", price: 19.9, price_min: 19.9, price_max: 21.9 });
  expect(json("Tee: ").available).toBe(true);
  expect(stdout).toContain('Rejected: row 2, Price: "19,90" is not a price with the decimal separator "."');
});
