// A profile's CSV or TSV read into rows: the header checked by the profile's columns, each
// record's kept cells by column name, at the line it starts on.
import { type DocumentReader, kindOf, noHeader, readTable } from "../csv.ts";
import type { Dialect } from "../csv-scanner.ts";
import type { Problems } from "../parse.ts";
import type { ColumnCheck } from "./columns.ts";
import type { RowPart } from "./grouping.ts";
import type { ProfileRow } from "./profile.ts";

/** Reads a platform's delimited file into rows of its kept columns; problems of structure end reading. */
export class RowReader implements DocumentReader<RowPart> {
  /** The header's names (trimmed), once read. */
  header: string[] | undefined;
  // The index and name of each kept column.
  private kept: [number, string][] = [];
  private readonly structure: Problems;
  private readonly columns: ColumnCheck;
  private readonly dialect: Dialect;

  constructor(structure: Problems, columns: ColumnCheck, dialect: Dialect) {
    this.structure = structure;
    this.columns = columns;
    this.dialect = dialect;
  }

  read(pieces: readonly Buffer[], first: number): (RowPart & { count: number }) | false {
    const { structure } = this;
    const read = readTable(pieces, first, Number.POSITIVE_INFINITY, structure, this.dialect);
    if (read === false) return false;
    const { table, restore } = read;
    const rows: ProfileRow[] = [];
    let r = 0;
    if (this.header === undefined) {
      const cells = table.records[0];
      if (cells === undefined) return { rows, count: 0 };
      const row = table.rows[0] as number;
      const before = structure.count;
      this.header = cells.map((name) => (restore ? restore(name) : name).trim());
      const seen = new Set<string>();
      this.header.forEach((name, c) => {
        const treatment = this.columns.treat(name, () => ({ row, column: name }));
        if (treatment !== "kept") return;
        if (seen.has(name)) structure.add({ row, column: name, message: `Column "${name}" is repeated` });
        seen.add(name);
        this.kept.push([c, name]);
      });
      if (structure.count > before) return false;
      r = 1;
    }
    const width = this.header.length;
    const start = r;
    for (; r < table.records.length; r++) {
      const record = table.records[r] as string[];
      const row = table.rows[r] as number;
      if (record.length !== width) {
        const hint = this.dialect.quoted
          ? ""
          : ` (a ${kindOf(this.dialect)} has no quoting: a tab inside a value splits it)`;
        structure.add({ row, message: `Expected ${width} cells, found ${record.length}${hint}` });
        continue;
      }
      const cells: Record<string, string> = {};
      for (const [c, name] of this.kept) {
        const value = record[c] as string;
        cells[name] = restore ? restore(value) : value;
      }
      rows.push({ position: row, cells });
    }
    return { rows, count: table.count - start };
  }

  end(): void {
    if (this.header === undefined) this.structure.add({ row: 1, message: noHeader(this.dialect) });
  }
}
