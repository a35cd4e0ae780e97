import { expect, it } from "vitest";
import { runExample } from "./support/run-example.ts";

it("embed-handler.ts serves the catalog API beside the application's own routes", async () => {
  const { stdout, stderr } = await runExample("embed-handler.ts");
  expect(stderr).toBe("");
  expect(stdout).toMatch(/^Import: 200 \{"message":"Imported 1 product/m);
  expect(stdout).toMatch(/^Get: 200 \{"id":"sock-1","sku":"SOCK-1"/m);
  expect(stdout).toContain("Own route: my shop backend");
  expect(stdout).toContain("access: GET /external/product/v1/SOCK-1 200");
});
