// A CSV document decoded as an import reads it, for tests of the decoder itself.
import type { Problem } from "@catalog-kit/catalog-core";
import { decodeCsvStream } from "../../src/csv-stream.ts";
import { Problems } from "../../src/parse.ts";
import { toBuffers } from "../../src/text.ts";

/** The records of `text`, the row of each, and the problems of its structure. */
export async function decodeCsv(
  text: string,
): Promise<{ records: Record<string, unknown>[]; rows: number[]; problems: Problem[] }> {
  const structure = new Problems();
  const records: Record<string, unknown>[] = [];
  const rows: number[] = [];
  for await (const part of decodeCsvStream(toBuffers([text]), structure)) {
    records.push(...(part.records as Record<string, unknown>[]));
    rows.push(...part.positions);
  }
  return { records, rows, problems: structure.list };
}
