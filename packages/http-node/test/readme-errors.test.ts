// The README's error table is the reference of the codes: exactly those of PROBLEM_STATUSES, each
// with its status (a not-found code also names the 404 that `notFoundStatus` may choose).
import { readFile } from "node:fs/promises";
import { expect, it } from "vitest";
import { PROBLEM_STATUSES } from "../src/problem.ts";

const readme = await readFile(new URL("../README.md", import.meta.url), "utf8");

it("README.md: the error table lists every problem code with its status, and no other", () => {
  const section = readme.slice(readme.indexOf("\n## Errors\n"));
  const rows = [...section.matchAll(/^\| `([A-Z_]+)` +\| (\d{3})( \(or 404\))? +\|/gm)];
  const table = Object.fromEntries(rows.map(([, code, status]) => [code, Number(status)]));
  expect(rows.length).toBe(Object.keys(table).length);
  expect(table).toEqual(PROBLEM_STATUSES);
  const switchable = rows.filter(([, , , or404]) => or404 !== undefined).map(([, code]) => code);
  expect(switchable.sort()).toEqual(["PRODUCT_NOT_FOUND", "SITE_NOT_FOUND"]);
});
