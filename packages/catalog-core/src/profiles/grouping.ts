// The grouping stage every profile shares: rows to the records of their groups, while the rows
// arrive. Rows of one group that follow one another stream (a group is made once the next begins);
// groups a profile keeps open are made at the end; a group whose rows come apart is a problem that
// names both rows, never two products or later rows replacing earlier ones.
import type { RecordPart } from "../parse.ts";
import { clip } from "../text.ts";
import { KeyTable } from "./key-table.ts";
import type { ImportProfile, ProfileContext, ProfileRow } from "./profile.ts";

/** Rows decoded from part of a file, and how many records it held (unreadable ones included). */
export interface RowPart {
  readonly rows: readonly ProfileRow[];
  readonly count: number;
}

/** Most bytes of rows the groups kept open to the end may hold, so that memory stays bounded. */
export const MAX_OPEN_BYTES = 64 * 1024 * 1024;

interface Group {
  readonly key: string;
  readonly rows: ProfileRow[];
  /** The later rows of a group already made: a problem, and no product (its problems would only repeat it). */
  readonly apart?: true;
}

function rowBytes(row: ProfileRow): number {
  let bytes = 64;
  for (const [name, value] of Object.entries(row.cells)) {
    bytes += name.length + (typeof value === "string" ? value.length : value.join("").length) * 2;
  }
  return bytes;
}

/**
 * The product records of a profile's rows, with their positions, while the rows arrive. Each
 * output part holds the products of the groups an input part closed, and counts those products
 * (the engine's limit counts products, not rows). Problems go to `context.problems`.
 */
export async function* groupRows(
  parts: AsyncIterable<RowPart> | Iterable<RowPart>,
  profile: ImportProfile,
  context: ProfileContext,
): AsyncGenerator<RecordPart> {
  const closed = new KeyTable();
  const open = new Map<string, Group>();
  const aliases = new Map<string, string>();
  let openBytes = 0;
  let current: Group | undefined;
  let records: unknown[] = [];
  let positions: number[] = [];

  const make = (group: Group) => {
    for (const made of profile.products(group.rows, context)) {
      records.push(made.record);
      positions.push(made.position);
    }
  };
  const close = () => {
    if (current === undefined) return;
    if (current.apart === undefined) make(current);
    closed.add(current.key, (current.rows[0] as ProfileRow).position);
    current = undefined;
  };
  const openGroup = (name: string) => {
    const key = open.has(name) ? name : aliases.get(name);
    return key === undefined ? undefined : open.get(key);
  };
  // Two open groups found to be one: the rows of `from` join `into`, in the file's order.
  const join = (into: Group, from: Group) => {
    into.rows.push(...from.rows);
    into.rows.sort((a, b) => a.position - b.position);
    open.delete(from.key);
    aliases.set(from.key, into.key);
    for (const [alias, key] of aliases) if (key === from.key) aliases.set(alias, into.key);
  };
  const take = () => {
    const part = { records, positions };
    records = [];
    positions = [];
    return part;
  };

  for await (const part of parts) {
    for (const row of part.rows) {
      const group = profile.group(row, context);
      let kept = openGroup(group.key);
      if (group.alias !== undefined) {
        // Rows that came first may have named the group by its alias (WooCommerce variations
        // written before their parent name it by its SKU): those rows are the same group.
        const named = openGroup(group.alias);
        if (kept === undefined) kept = named;
        else if (named !== undefined && named !== kept) join(kept, named);
      }
      if (kept !== undefined || group.open) {
        if (kept !== undefined && group.key !== kept.key && !open.has(group.key) && !aliases.has(group.key)) {
          aliases.set(group.key, kept.key);
        }
        if (group.alias !== undefined && !aliases.has(group.alias)) aliases.set(group.alias, kept?.key ?? group.key);
        if (kept !== undefined) kept.rows.push(row);
        else {
          if (current?.key === group.key) {
            open.set(group.key, current);
            current.rows.push(row);
            current = undefined;
          } else open.set(group.key, { key: group.key, rows: [row] });
        }
        openBytes += rowBytes(row);
        if (openBytes > MAX_OPEN_BYTES) {
          context.problems.add({
            ...context.place(row, profile.columnOf("id", Object.keys(row.cells))),
            message: `Products waiting for rows that may come later hold more than ${MAX_OPEN_BYTES / 1024 / 1024} MB: write each product's rows together`,
          });
          return;
        }
        continue;
      }
      if (current?.key === group.key) {
        current.rows.push(row);
        continue;
      }
      close();
      const earlier = closed.get(group.key);
      if (earlier !== undefined) {
        context.problems.add({
          ...context.place(row, profile.columnOf("id", Object.keys(row.cells))),
          message: `The rows of "${clip(group.key)}" are apart: they begin at ${where(context, earlier)} and start again here; write each product's rows together`,
        });
      }
      current = earlier === undefined ? { key: group.key, rows: [row] } : { key: group.key, rows: [row], apart: true };
    }
    if (records.length > 0) yield take();
  }
  close();
  for (const group of [...open.values()].sort((a, b) => (a.rows[0]?.position ?? 0) - (b.rows[0]?.position ?? 0))) {
    make(group);
  }
  if (records.length > 0) yield take();
}

// "row 12" or "item 12": a position as the file's kind names it.
function where(context: ProfileContext, position: number): string {
  const place = context.place({ position, cells: {} }, "");
  return place.item === undefined ? `row ${position}` : `item ${position}`;
}
