// SQLite's plan of each statement that reads products by a key: an index search on the site and
// that key, never a walk of the site (a planner with no statistics may pick one: a lookup by sku
// once walked the site's primary key, 336 lookups a second at 20,000 products). The statements a
// replace runs walk the site on purpose, and are not here.
import { expect, test } from "vitest";
import { Connection } from "../src/connection.ts";
import { loadSqlite } from "../src/driver.ts";
import {
  DUE,
  KEPT_LAST,
  LEASE,
  LIST_BEFORE,
  LIST_NEWEST,
  READ_PROBLEMS,
  READ_RECORD,
  RESCHEDULE,
  SETTLE,
  TRIM_PROBLEMS,
  TRIM_RECORDS,
} from "../src/history.ts";
import { LIST_AFTER, LIST_FIRST, MATCH } from "../src/lookup-sql.ts";
import { moveSql } from "../src/new-site.ts";
import { migrate } from "../src/schema.ts";
import { orderSql, querySql, stagingSql } from "../src/staged-import.ts";

function plans(): Record<string, string[]> {
  const { DatabaseSync } = loadSqlite();
  const connection = new Connection(new DatabaseSync(":memory:"));
  migrate(connection);
  const table = "temp.staged_1";
  connection.db.exec(stagingSql(table));
  connection.db.exec(orderSql(table));
  const statements = {
    "find by id": MATCH.id,
    "find by sku": MATCH.sku,
    "find by id, then sku": MATCH.either,
    "list from the first": LIST_FIRST,
    "list after an id": LIST_AFTER,
    "the commit's query": querySql(table),
  };
  const found = Object.fromEntries(
    Object.entries(statements).map(([name, sql]) => [
      name,
      (connection.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as { detail: string }[]).map((row) => row.detail),
    ]),
  );
  connection.close();
  return found;
}

test("every statement that reads products by a key searches an index on the site and that key", () => {
  for (const [name, steps] of Object.entries(plans())) {
    const onProducts = steps.filter((step) => / (main\.)?products| stored| holder/.test(step));
    expect(onProducts.length, name).toBeGreaterThan(0);
    for (const step of onProducts) {
      const byKey = /^SEARCH .* \(site=\? AND (id[=>]\?|sku=\?)\)/.test(step);
      // A page from the first id walks the site's key in order, and stops after `limit`.
      const firstPage = name === "list from the first" && step === "SEARCH products USING PRIMARY KEY (site=?)";
      expect(byKey || firstPage, `${name}: ${step}`).toBe(true);
    }
  }
});

// The history's and the queue's: a range of a primary key or of the claim's index, never a walk
// of the table nor a sort of what it read.
test("every statement of the import history and the delivery queue searches an index, in its order", () => {
  const { DatabaseSync } = loadSqlite();
  const connection = new Connection(new DatabaseSync(":memory:"));
  migrate(connection);
  const statements = { READ_RECORD, READ_PROBLEMS, LIST_NEWEST, LIST_BEFORE, KEPT_LAST, TRIM_RECORDS, TRIM_PROBLEMS };
  for (const [name, sql] of Object.entries({ ...statements, LEASE, SETTLE, RESCHEDULE, DUE })) {
    const steps = (connection.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as { detail: string }[]).map(
      (row) => row.detail,
    );
    expect(steps, name).toHaveLength(1);
    const expected =
      sql === DUE
        ? /INDEX deliveries_due \(due_at<\?\)$/
        : /INDEX sqlite_autoindex_\w+_1 \((site=\?( AND id[=<]\?)?|id=\?)\)$/;
    expect(steps[0], name).toMatch(/^SEARCH /);
    expect(steps[0], name).toMatch(expected);
  }
  connection.close();
});

// A new site's import sent back to its staging: each position it kept seeks its product by key,
// never each product of the number walked against every position.
test("moving a new site's products into the staging seeks each by its key", () => {
  const { DatabaseSync } = loadSqlite();
  const connection = new Connection(new DatabaseSync(":memory:"));
  migrate(connection);
  connection.db.exec(stagingSql("temp.staged_1"));
  connection.db.exec("CREATE TABLE temp.new_site_order_1 (pairs TEXT NOT NULL)");
  const steps = (
    connection.db.prepare(`EXPLAIN QUERY PLAN ${moveSql("temp.new_site_order_1", "temp.staged_1")}`).all() as {
      detail: string;
    }[]
  ).map((row) => row.detail);
  connection.close();
  expect(steps).toContain("SEARCH p USING PRIMARY KEY (site=? AND id=?)");
  const scanned = steps.filter((step) => step.startsWith("SCAN")).map((step) => step.split(" ")[1]);
  expect(scanned.sort()).toEqual(["o", "pair"]);
});
