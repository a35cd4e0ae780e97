// `catalog-kit import FILE|-`: a catalog of any size sent to a server, streamed as a raw body
// where the server takes one, with progress, under one Idempotency-Key however often it is
// tried; its outcome reported by import-report.ts.
import { randomUUID } from "node:crypto";
import type { OutgoingHttpHeaders } from "node:http";
import { parseArgs } from "node:util";
import { BULK_PATH, CSV_PATH } from "@catalog-kit/http-node";
import { type FileKind, formatOption, importKind } from "./file-format.ts";
import { printHelp } from "./help.ts";
import { importBody } from "./import-body.ts";
import { PROFILE_OPTIONS, profileQuery } from "./import-profile.ts";
import { reportImport } from "./import-report.ts";
import {
  CONNECTION_OPTIONS,
  type Connection,
  connection,
  endpoint,
  HELP_OPTION,
  RETRIES_OPTION,
  retriesOf,
  UsageError,
} from "./options.ts";
import { createProgress } from "./progress.ts";
import { withRetries } from "./retry.ts";
import { upload } from "./upload.ts";

const TYPES = {
  csv: "text/csv",
  tsv: "text/tab-separated-values",
  ndjson: "application/x-ndjson",
  json: "application/json",
  xml: "application/xml",
} as const;

// What an Idempotency-Key may hold: visible ASCII, as a header value allows, and not too long.
const KEY = /^[\x21-\x7e]{1,255}$/;

function target(to: Connection, kind: FileKind, query: Record<string, string>): URL {
  return endpoint(to, kind.format === "csv" || kind.format === "tsv" ? CSV_PATH : BULK_PATH, query);
}

const MISSING = ["error", "skip", "create"];

// The query of `--replace`, or of `--merge` and its `--missing`; the mistakes the server would
// refuse only once the file is sent are said before.
function modeOf(values: { replace: boolean; merge: boolean; missing?: string | undefined }): Record<string, string> {
  const { replace, merge, missing } = values;
  if (replace && merge) throw new UsageError("Give --replace or --merge, not both");
  if (missing !== undefined && !merge) throw new UsageError("--missing takes effect with --merge only");
  if (missing !== undefined && !MISSING.includes(missing)) {
    throw new UsageError(`--missing takes error, skip or create; got ${JSON.stringify(missing)}`);
  }
  if (replace) return { mode: "replace" };
  if (!merge) return {};
  return missing === undefined ? { mode: "merge" } : { mode: "merge", missing };
}

/** Runs `catalog-kit import`; returns the exit code. */
export async function importFile(args: readonly string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...args],
    allowPositionals: true,
    options: {
      ...HELP_OPTION,
      ...CONNECTION_OPTIONS,
      ...RETRIES_OPTION,
      ...PROFILE_OPTIONS,
      format: { type: "string" },
      "dry-run": { type: "boolean", default: false },
      replace: { type: "boolean", default: false },
      merge: { type: "boolean", default: false },
      missing: { type: "string" },
      "allow-empty": { type: "boolean", default: false },
      json: { type: "boolean", default: false },
      "idempotency-key": { type: "string" },
      "progress-every": { type: "string", default: "2" },
    },
  });
  if (values.help) return printHelp("import");
  const [file, ...extra] = positionals;
  if (file === undefined || extra.length > 0) throw new UsageError("Give one file to import, or - for standard input");
  const retries = retriesOf(values.retries);
  const every = Number(values["progress-every"]) * 1_000;
  if (!(every > 0)) throw new UsageError("--progress-every must be a number of seconds");
  const key = values["idempotency-key"] ?? randomUUID();
  if (!KEY.test(key)) throw new UsageError("--idempotency-key must be 1 to 255 visible ASCII characters");
  const mode = modeOf(values);
  const kind = importKind(file, formatOption(values.format));
  // Before the connection's own checks: a file that needs --shop-url says so whatever else is missing.
  const query = await profileQuery(file, kind, values, (line) => process.stderr.write(`catalog-kit: ${line}\n`));
  const to = await connection(values);
  if (values["dry-run"]) query.dryRun = "true";
  Object.assign(query, mode);
  if (values["allow-empty"]) query.allowEmpty = "true";

  const body = await importBody(file, kind);
  const headers: OutgoingHttpHeaders = {
    "x-service-access-token": to.token,
    "content-type": TYPES[kind.format],
    "idempotency-key": key,
    ...(body.size === undefined ? {} : { "content-length": body.size }),
    ...(kind.gzip ? { "content-encoding": "gzip" } : {}),
  };
  process.stderr.write(`Idempotency-Key: ${key}\n`);
  const started = performance.now();
  const cpu = process.cpuUsage();
  const url = target(to, kind, query);
  const outcome = await withRetries(
    async () => {
      const progress = createProgress(body.size, process.stderr, every);
      try {
        return await upload(url, headers, body, (n) => progress.advance(n));
      } finally {
        progress.stop();
      }
    },
    { retries, canRetry: () => body.canResend(), log: (line) => process.stderr.write(`${line}\n`) },
  );
  return reportImport(outcome, {
    size: body.size,
    idempotencyKey: key,
    json: values.json,
    started,
    cpu,
    resendable: body.canResend(),
  });
}
