// The delivery queue in PostgreSQL: a row per delivery, enqueued by `saveImport` (history.ts).
// A claim is one statement: it locks the earliest due rows no live lease holds, skipping rows
// another claim has locked (SKIP LOCKED: claims made at once take different rows, and never wait
// for each other), and leases them. Times are the caller's clock, never the server's.
import { randomUUID } from "node:crypto";
import type { ClaimedDelivery } from "@catalog-kit/catalog-core";
import type { Tables } from "./schema.ts";
import type { Statement } from "./tenants.ts";
import { unholdable } from "./unholdable.ts";

// A row locked and then found changed (another claim leased it meanwhile) is checked again
// against the WHERE clause. Each delivery's lease is the token and its rank in the claim: one of
// its own. The index on `due_at` serves the ORDER BY and LIMIT: leased rows, skipped on the way,
// are only the deliveries in flight.
/** The claim's statement: `$1` now, `$2` the lease's length, `$3` the limit, `$4` the claim's token. */
export const claimSql = (t: Tables): string => `
  WITH picked AS (
    SELECT id FROM ${t.deliveries}
    WHERE due_at <= $1::float8 AND (leased_until IS NULL OR leased_until <= $1::float8)
    ORDER BY due_at LIMIT $3 FOR UPDATE SKIP LOCKED
  )
  UPDATE ${t.deliveries} d SET lease = $4::text || '.' || p.n, leased_until = $1::float8 + $2::float8
  FROM (SELECT id, row_number() OVER () AS n FROM picked) p
  WHERE d.id = p.id
  RETURNING d.id, d.due_at, d.value, d.lease`;

const removeSql = (t: Tables) => `DELETE FROM ${t.deliveries} WHERE id = $1 AND lease = $2 RETURNING 1`;

const rescheduleSql = (t: Tables) => `
  UPDATE ${t.deliveries} SET due_at = $3, value = $4, lease = NULL, leased_until = NULL
  WHERE id = $1 AND lease = $2 RETURNING 1`;

/** `CatalogStore.claimDeliveries` in one statement, answered earliest due first. */
export async function claimDeliveries(
  write: Statement,
  t: Tables,
  now: number,
  leaseMs: number,
  limit: number,
): Promise<ClaimedDelivery[]> {
  if (!(limit >= 1)) return [];
  const rows = await write<{ id: string; due_at: number; value: string; lease: string }>(claimSql(t), [
    now,
    leaseMs,
    Math.floor(limit),
    randomUUID(),
  ]);
  // UPDATE ... RETURNING answers in no particular order.
  return rows
    .map(({ id, due_at, value, lease }) => ({ id, dueAt: due_at, value, lease }))
    .sort((a, b) => a.dueAt - b.dueAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** `CatalogStore.settleDelivery` in one statement, which finds the row only while `lease` holds it. */
export async function settleDelivery(
  write: Statement,
  t: Tables,
  id: string,
  lease: string,
  next?: { readonly dueAt: number; readonly value: string },
): Promise<boolean> {
  if (next !== undefined && unholdable(next.value)) {
    throw new TypeError("settleDelivery: a value must be well-formed Unicode without NUL");
  }
  // No row holds such text: nothing to settle.
  if (unholdable(id) || unholdable(lease)) return false;
  const rows =
    next === undefined
      ? await write(removeSql(t), [id, lease])
      : await write(rescheduleSql(t), [id, lease, next.dueAt, next.value]);
  return rows.length > 0;
}
