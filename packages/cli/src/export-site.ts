// `catalog-kit export`: every product of a site, as the server streams it, to standard output.
import type { IncomingMessage } from "node:http";
import { get as httpGet } from "node:http";
import { get as httpsGet } from "node:https";
import { pipeline } from "node:stream/promises";
import { parseArgs } from "node:util";
import { LIST_PATH } from "@catalog-kit/http-node";
import { CONNECTION_OPTIONS, connection, endpoint, formatBytes, UsageError } from "./options.ts";
import { type ProblemAnswer, problemTable } from "./problems.ts";

const ACCEPT = { csv: "text/csv", ndjson: "application/x-ndjson" } as const;

/** Runs `catalog-kit export`; returns the exit code. */
export async function exportSite(
  args: readonly string[],
  out: NodeJS.WritableStream = process.stdout,
): Promise<number> {
  const { values } = parseArgs({
    args: [...args],
    options: { ...CONNECTION_OPTIONS, format: { type: "string", default: "csv" } },
  });
  const format = values.format;
  if (format !== "csv" && format !== "ndjson") throw new UsageError("--format must be csv or ndjson");
  const to = await connection(values);
  const url = endpoint(to, LIST_PATH);
  const get = url.protocol === "https:" ? httpsGet : httpGet;
  const res = await new Promise<IncomingMessage>((resolve, reject) => {
    get(url, { headers: { "x-service-access-token": to.token, accept: ACCEPT[format] } }, resolve).on("error", reject);
  });
  if (res.statusCode !== 200) {
    let text = "";
    for await (const chunk of res) text += chunk;
    process.stderr.write(problemTable(JSON.parse(text) as ProblemAnswer));
    return 1;
  }
  let bytes = 0;
  res.on("data", (chunk: Buffer) => {
    bytes += chunk.length;
  });
  // An answer cut short (the server failed mid-way) ends without its last chunk: an error here.
  await pipeline(res, out, { end: out !== process.stdout });
  process.stderr.write(`Exported ${formatBytes(bytes)}\n`);
  return 0;
}
