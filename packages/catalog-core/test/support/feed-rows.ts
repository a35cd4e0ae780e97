// Feeds as the decoders hand them to a profile: a TSV split into rows of the columns the profile
// keeps, and the records and problems of a profile's run over them.
import { Problems } from "../../src/parse.ts";
import { groupRows, type RowPart } from "../../src/profiles/grouping.ts";
import {
  type ImportProfile,
  type ProfileFormat,
  type ProfileParameters,
  type ProfileRow,
  profileContext,
} from "../../src/profiles/profile.ts";

/** A TSV's header and rows, split on "\n" and "\t", each row at its line number, only kept columns. */
export function tsvRows(profile: ImportProfile, text: string): { header: string[]; rows: ProfileRow[] } {
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  const header = (lines[0] ?? "").split("\t");
  const rows = lines.slice(1).map((line, index) => {
    const values = line.split("\t");
    const cells: Record<string, string> = {};
    header.forEach((name, column) => {
      if (profile.column(name) === "kept") cells[name] = values[column] ?? "";
    });
    return { position: index + 2, cells };
  });
  return { header, rows };
}

/** What a profile made of rows cut into `parts`: its records, their positions, and the problems. */
export async function runProfile(
  profile: ImportProfile,
  format: ProfileFormat,
  parameters: ProfileParameters,
  parts: readonly (readonly ProfileRow[])[],
): Promise<{ records: unknown[]; positions: number[]; problems: Problems }> {
  const problems = new Problems();
  const input: RowPart[] = parts.map((rows) => ({ rows, count: rows.length }));
  const records: unknown[] = [];
  const positions: number[] = [];
  for await (const part of groupRows(input, profile, profileContext(format, parameters, problems))) {
    records.push(...part.records);
    positions.push(...part.positions);
  }
  return { records, positions, problems };
}
