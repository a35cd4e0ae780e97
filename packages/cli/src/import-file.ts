// `catalog-kit import FILE`: a catalog file of any size sent to a server, streamed as a raw body
// where the server takes one, with progress, retried after a 503 (imports are idempotent), its
// answer printed as a summary or as a table of located problems.
import { createReadStream } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { setTimeout as sleep } from "node:timers/promises";
import { parseArgs } from "node:util";
import { gunzipSync } from "node:zlib";
import { BULK_PATH, CSV_PATH } from "@catalog-kit/http-node";
import { CONNECTION_OPTIONS, type Connection, connection, endpoint, formatBytes, UsageError } from "./options.ts";
import { type ProblemAnswer, problemTable } from "./problems.ts";
import { createProgress } from "./progress.ts";

/** How a file is sent, by its name: CSV and NDJSON stream as they are (gzip too); JSON is wrapped. */
interface FileKind {
  readonly format: "csv" | "ndjson" | "json";
  readonly gzip: boolean;
}

const FORMATS: Readonly<Record<string, FileKind["format"]>> = {
  csv: "csv",
  ndjson: "ndjson",
  jsonl: "ndjson",
  json: "json",
};

/** The format of a file from its name (`.csv`, `.ndjson`, `.jsonl`, `.json`, each maybe `.gz`). */
export function fileKind(file: string): FileKind {
  const gzip = file.toLowerCase().endsWith(".gz");
  const name = gzip ? file.slice(0, -3) : file;
  const format = FORMATS[name.slice(name.lastIndexOf(".") + 1).toLowerCase()];
  if (format === undefined)
    throw new UsageError(`Cannot tell the format of ${file}: name it .csv, .ndjson, .jsonl or .json (maybe .gz)`);
  return { format, gzip };
}

interface Answer {
  readonly status: number;
  readonly retryAfter: number;
  readonly body: string;
}

// Bytes read from the file at a time: with the stream's default (64 KiB) the command spent about
// as much CPU on a gigabyte as the server did reading it.
const READ_BYTES = 1 << 20;

const TYPES = { csv: "text/csv", ndjson: "application/x-ndjson", json: "application/json" } as const;

// One attempt: the request, its body piped with backpressure while the progress advances.
function send(
  url: URL,
  headers: Record<string, string | number>,
  body: NodeJS.ReadableStream | Buffer,
  onBytes: (n: number) => void,
): Promise<Answer> {
  const request = url.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = request(url, { method: "POST", headers });
    req.on("response", (res: IncomingMessage) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        text += chunk;
      });
      res.on("end", () => {
        const retryAfter = Number(res.headers["retry-after"]);
        resolve({ status: res.statusCode ?? 0, retryAfter: Number.isFinite(retryAfter) ? retryAfter : 5, body: text });
      });
      res.on("error", reject);
    });
    // A server that answers early (a located problem, a limit) may close before the body is sent:
    // its answer counts, the broken pipe does not.
    req.on("error", reject);
    if (Buffer.isBuffer(body)) {
      onBytes(body.length);
      req.end(body);
    } else {
      body.on("data", (chunk: Buffer) => onBytes(chunk.length));
      body.on("error", reject);
      body.pipe(req);
    }
  });
}

async function jsonBody(file: string, kind: FileKind, to: Connection): Promise<Buffer> {
  const raw = await readFile(file);
  const parsed: unknown = JSON.parse((kind.gzip ? gunzipSync(raw) : raw).toString("utf8"));
  const envelope = Array.isArray(parsed) ? { products: parsed } : (parsed as Record<string, unknown>);
  return Buffer.from(JSON.stringify({ siteId: to.siteId, siteType: to.siteType, ...envelope }));
}

/** Runs `catalog-kit import`; returns the exit code. */
export async function importFile(args: readonly string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...args],
    allowPositionals: true,
    options: {
      ...CONNECTION_OPTIONS,
      "dry-run": { type: "boolean", default: false },
      replace: { type: "boolean", default: false },
      "allow-empty": { type: "boolean", default: false },
      retries: { type: "string", default: "5" },
      "progress-every": { type: "string", default: "2" },
    },
  });
  const [file, ...extra] = positionals;
  if (file === undefined || extra.length > 0) throw new UsageError("Give one file to import");
  const retries = Number(values.retries);
  if (!Number.isSafeInteger(retries) || retries < 0) throw new UsageError("--retries must be a whole number");
  const every = Number(values["progress-every"]) * 1_000;
  if (!(every > 0)) throw new UsageError("--progress-every must be a number of seconds");
  const kind = fileKind(file);
  const to = await connection(values);
  const query: Record<string, string> = {};
  if (values["dry-run"]) query.dryRun = "true";
  if (values.replace) query.mode = "replace";
  if (values["allow-empty"]) query.allowEmpty = "true";

  const raw = kind.format !== "json";
  const url = raw
    ? endpoint(to, kind.format === "csv" ? CSV_PATH : BULK_PATH, query)
    : new URL(`${BULK_PATH}?${new URLSearchParams(query)}`, to.url);
  const json = raw ? undefined : await jsonBody(file, kind, to);
  const size = json?.length ?? (await stat(file)).size;
  const headers: Record<string, string | number> = {
    "x-service-access-token": to.token,
    "content-type": TYPES[kind.format],
    "content-length": size,
    ...(raw && kind.gzip ? { "content-encoding": "gzip" } : {}),
  };

  const started = performance.now();
  const cpu = process.cpuUsage();
  let answer: Answer;
  for (let attempt = 0; ; attempt++) {
    const progress = createProgress(size, process.stderr, every);
    try {
      answer = await send(url, headers, json ?? createReadStream(file, { highWaterMark: READ_BYTES }), (n) =>
        progress.advance(n),
      );
    } finally {
      progress.stop();
    }
    if (answer.status !== 503 || attempt >= retries) break;
    process.stderr.write(
      `503 from the server: trying again in ${answer.retryAfter} s (${attempt + 1} of ${retries})\n`,
    );
    await sleep(answer.retryAfter * 1_000);
  }
  const seconds = (performance.now() - started) / 1_000;
  const used = process.cpuUsage(cpu);
  process.stderr.write(
    `Sent ${formatBytes(size)} in ${seconds.toFixed(1)} s; this tool used ${((used.user + used.system) / 1e6).toFixed(2)} s of CPU\n`,
  );
  let body: unknown;
  try {
    body = JSON.parse(answer.body);
  } catch {
    body = undefined;
  }
  if (answer.status === 200) {
    process.stdout.write(`${(body as { message?: string } | undefined)?.message ?? answer.body}\n${answer.body}\n`);
    return 0;
  }
  process.stderr.write(
    body === undefined ? `HTTP ${answer.status}: ${answer.body}\n` : problemTable(body as ProblemAnswer),
  );
  return 1;
}
