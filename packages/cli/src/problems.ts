// A refused import's problems as a table people read: where (CSV row, NDJSON line, pointer or
// parameter), which field, and what is wrong.
import type { ProblemBody } from "@catalog-kit/http-node";
import { formatCount } from "./human-numbers.ts";

/**
 * The answer of a refused request: the server's problem body, any member of which may be missing
 * when something in between (a proxy, a load balancer) answered instead.
 */
export type ProblemAnswer = Partial<ProblemBody>;

type Entry = ProblemBody["errors"][number];

function where(entry: Entry): [string, string] {
  if (entry.row !== undefined) return [`row ${entry.row}`, entry.column ?? ""];
  if (entry.line !== undefined) return [`line ${entry.line}`, entry.pointer ?? ""];
  if (entry.parameter !== undefined) return ["parameter", entry.parameter];
  return ["body", entry.pointer ?? ""];
}

/** The problem body as text: its status, code and detail, then a table of its problems. */
export function problemTable(body: ProblemAnswer): string {
  const rows = (body.errors ?? []).map((entry) => [...where(entry), entry.message]);
  const status = body.status === undefined ? "" : `${body.status} `;
  const lines = [`${status}${body.code ?? "ERROR"}: ${body.detail ?? "the request was refused"}`];
  if (rows.length > 0) {
    const header = ["where", "field", "problem"];
    const widths = header.map((title, c) => Math.max(title.length, ...rows.map((row) => (row[c] as string).length)));
    const format = (row: readonly string[]) =>
      row.map((cell, c) => (c === row.length - 1 ? cell : cell.padEnd(widths[c] as number))).join("  ");
    lines.push("", format(header), format(widths.map((w) => "-".repeat(w))), ...rows.map(format));
    const total = body.errorCount ?? rows.length;
    if (total > rows.length) {
      lines.push(`... ${formatCount(total - rows.length)} more (${formatCount(total)} problems in all)`);
    }
  }
  return `${lines.join("\n")}\n`;
}
