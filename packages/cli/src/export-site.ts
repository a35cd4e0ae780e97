// `catalog-kit export [FILE|-]`: every product of a site, as the server streams it, to standard
// output or a file, in an import format or, with --profile, as Google's or Meta's feed; a reader
// that stops early ends it quietly.
import { createWriteStream } from "node:fs";
import { rm } from "node:fs/promises";
import type { IncomingMessage } from "node:http";
import { get as httpGet } from "node:http";
import { get as httpsGet } from "node:https";
import { pipeline } from "node:stream/promises";
import { parseArgs } from "node:util";
import { EXPORT_PATH, LIST_PATH } from "@catalog-kit/http-node";
import { isBrokenPipe } from "./broken-pipe.ts";
import { type ExportFormat, exportFormat, exportFormatOption } from "./file-format.ts";
import { printHelp } from "./help.ts";
import { formatBytes } from "./human-numbers.ts";
import type { Io } from "./io.ts";
import { ndjsonToJsonArray } from "./json-array.ts";
import {
  CONNECTION_OPTIONS,
  connection,
  endpoint,
  HELP_OPTION,
  RETRIES_OPTION,
  retriesOf,
  UsageError,
} from "./options.ts";
import { type ProblemAnswer, problemTable } from "./problems.ts";
import { type Answered, errorText, type Outcome, retryAfterOf, unanswered, withRetries } from "./retry.ts";

// JSON is NDJSON made an array here: the server pages JSON, it streams only the import formats.
const ACCEPT: Readonly<Record<ExportFormat, string>> = {
  csv: "text/csv",
  ndjson: "application/x-ndjson",
  json: "application/x-ndjson",
};

// A feed is a tab-separated file: Merchant Center's text feed, which Meta reads too.
const FEED_TYPE = "text/tab-separated-values";

// The platforms whose feed the server writes.
const FEED_PROFILES = ["google", "meta"];

interface ExportAnswer extends Answered {
  /** The export, when the server sent one (200). */
  readonly res?: IncomingMessage;
  /** The body of any other answer. */
  readonly text?: string;
}

function requestExport(url: URL, token: string, accept: string): Promise<Outcome<ExportAnswer>> {
  const get = url.protocol === "https:" ? httpsGet : httpGet;
  return new Promise((resolve) => {
    get(url, { headers: { "x-service-access-token": token, accept } }, (res) => {
      const status = res.statusCode ?? 0;
      const retryAfter = retryAfterOf(res);
      if (status === 200) {
        resolve({ kind: "answer", answer: { status, retryAfter, res } });
        return;
      }
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        text += chunk;
      });
      res.on("error", () => {});
      res.once("close", () => resolve({ kind: "answer", answer: { status, retryAfter, text } }));
    }).on("error", (error) => resolve(unanswered(error)));
  });
}

function problemOf(status: number, text: string): string {
  try {
    return problemTable({ status, ...(JSON.parse(text) as ProblemAnswer) });
  } catch {
    return `HTTP ${status}: ${text}\n`;
  }
}

/** Runs `catalog-kit export`; returns the exit code. */
export async function exportSite(args: readonly string[], io: Io): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...args],
    allowPositionals: true,
    options: {
      ...HELP_OPTION,
      ...CONNECTION_OPTIONS,
      ...RETRIES_OPTION,
      format: { type: "string" },
      profile: { type: "string" },
      currency: { type: "string" },
    },
  });
  if (values.help) return printHelp(io, "export");
  const [file, ...extra] = positionals;
  if (extra.length > 0) throw new UsageError("Give at most one file to export to (- for standard output)");
  const format = exportFormat(file, exportFormatOption(values.format));
  const feed = values.profile;
  if (feed !== undefined && !FEED_PROFILES.includes(feed)) {
    throw new UsageError(`--profile must be google or meta (their feeds are what export writes), not ${feed}`);
  }
  if (feed !== undefined && values.format !== undefined) {
    throw new UsageError("--profile writes the platform's feed (TSV): leave --format out");
  }
  if (feed === undefined && values.currency !== undefined)
    throw new UsageError("--currency is for a feed: give --profile");
  const retries = retriesOf(values.retries);
  const to = await connection(values, io.env);
  const url =
    feed === undefined
      ? endpoint(to, LIST_PATH)
      : endpoint(
          to,
          EXPORT_PATH,
          values.currency === undefined ? { profile: feed } : { profile: feed, currency: values.currency },
        );
  const accept = feed === undefined ? ACCEPT[format] : FEED_TYPE;
  const outcome = await withRetries(() => requestExport(url, to.token, accept), {
    retries,
    log: (line) => io.stderr.write(`${line}\n`),
  });
  if (outcome.kind !== "answer") {
    io.stderr.write(`No answer from the server: ${errorText(outcome.error)}\n`);
    return 3;
  }
  const { status, res, text } = outcome.answer;
  if (res === undefined) {
    io.stderr.write(problemOf(status, text ?? ""));
    return 1;
  }

  const toFile = file !== undefined && file !== "-";
  const out = toFile ? createWriteStream(file) : io.stdout;
  let bytes = 0;
  res.on("data", (chunk: Buffer) => {
    bytes += chunk.length;
  });
  try {
    // An answer cut short (the server failed mid-way) ends without its last chunk: an error here.
    if (format === "json" && feed === undefined) await pipeline(res, ndjsonToJsonArray(), out, { end: toFile });
    else await pipeline(res, out, { end: toFile });
  } catch (error) {
    if (!toFile && isBrokenPipe(error)) return 0;
    if (toFile) await rm(file, { force: true });
    if (!res.complete && out.errored === null) {
      io.stderr.write(`The connection was lost after ${formatBytes(bytes)}: the export is incomplete\n`);
      return 3;
    }
    throw error;
  }
  io.stderr.write(`Exported ${formatBytes(bytes)}${toFile ? ` to ${file}` : ""}\n`);
  return 0;
}
