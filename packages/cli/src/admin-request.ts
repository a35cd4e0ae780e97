// A request of the admin API (`sites`, `tokens`): the token from a file or the environment, a
// JSON answer, a refusal printed as the server's problem, and no answer told apart (exit code 3).
import type { Io } from "./io.ts";
import { type ProblemAnswer, problemTable } from "./problems.ts";
import { errorText } from "./retry.ts";

/** What an admin request came to: the answer's JSON, or the exit code of a refusal or of no answer. */
export type AdminOutcome =
  | { readonly ok: true; readonly body: unknown }
  | { readonly ok: false; readonly code: number };

/** Sends one admin request; a refusal's problem and a failure to connect are written to standard error. */
export async function adminRequest(
  io: Io,
  to: { readonly url: URL; readonly token: string },
  method: "GET" | "POST" | "DELETE",
  path: string,
  body?: unknown,
): Promise<AdminOutcome> {
  const headers: Record<string, string> = { "x-service-access-token": to.token };
  if (body !== undefined) headers["content-type"] = "application/json";
  let res: Response;
  let text: string;
  try {
    res = await fetch(new URL(path, to.url), {
      method,
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    text = await res.text();
  } catch (error) {
    const cause = (error as { cause?: unknown }).cause;
    io.stderr.write(`No answer from the server: ${errorText(cause instanceof Error ? cause : (error as Error))}\n`);
    return { ok: false, code: 3 };
  }
  if (!res.ok) return { ok: false, code: printRefusal(io, res.status, text) };
  try {
    return { ok: true, body: JSON.parse(text) };
  } catch {
    io.stderr.write(`HTTP ${res.status}: ${text}\n`);
    return { ok: false, code: 1 };
  }
}

/** Writes a refusal to standard error, as its problem when it has one; the exit code of a refusal. */
export function printRefusal(io: Io, status: number, text: string): number {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {}
  const problem = typeof json === "object" && json !== null;
  io.stderr.write(problem ? problemTable({ status, ...(json as ProblemAnswer) }) : `HTTP ${status}: ${text}\n`);
  return 1;
}

/** Rows as columns padded to their widest cell, a header and a rule first. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((title, c) => Math.max(title.length, ...rows.map((row) => (row[c] ?? "").length)));
  const line = (row: readonly string[]) =>
    row
      .map((cell, c) => (c === row.length - 1 ? cell : cell.padEnd(widths[c] as number)))
      .join("  ")
      .trimEnd();
  return `${[line(header), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)].join("\n")}\n`;
}
