// The paths clients take from this package reach the resources they name in the route table.
import { expect, it } from "vitest";
import { API_PREFIX, BULK_PATH, CSV_PATH, LIST_PATH, productPath } from "../src/index.ts";
import { decodeProductId } from "../src/request-target.ts";
import { matchRoute } from "../src/routes.ts";

it("name the list, bulk and CSV resources, and a product by any id", () => {
  expect(API_PREFIX).toBe("/external/product/v1");
  expect(matchRoute(LIST_PATH)).toEqual({ kind: "single" });
  expect(matchRoute(BULK_PATH)).toEqual({ kind: "bulk" });
  expect(matchRoute(CSV_PATH)).toEqual({ kind: "csv" });
  for (const id of ["p1", "a/b", "50% off", "bulk/csv", "é?#&"]) {
    const resource = matchRoute(productPath(id));
    expect(resource?.kind, id).toBe("product");
    expect(decodeProductId((resource as { rawId: string }).rawId), id).toBe(id);
  }
});
