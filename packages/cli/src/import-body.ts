// What `import` sends: a file streamed from disk, standard input streamed once, or a JSON body
// built in memory (a JSON file is one document the server reads whole anyway).
import { createReadStream } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import type { Readable } from "node:stream";
import { buffer } from "node:stream/consumers";
import { gunzipSync } from "node:zlib";
import type { FileKind } from "./file-format.ts";

/** The body of an import, sent from its start on every try, as long as it can be. */
export interface ImportBody {
  /** Its bytes, when known beforehand (standard input's are not: it goes chunked). */
  readonly size: number | undefined;
  /** The body from its first byte. */
  open(): Readable | Buffer;
  /** False once a body that cannot be read twice (standard input) has been read from. */
  canResend(): boolean;
}

// Bytes read from the file at a time: with the stream's default (64 KiB) the command spent about
// as much CPU on a gigabyte as the server did reading it.
const READ_BYTES = 1 << 20;

// A JSON file's site, if it names one, stays in it; --site goes in the query, as for any file.
async function jsonBody(file: string, kind: FileKind, stdin: () => Readable): Promise<Buffer> {
  const raw = file === "-" ? await buffer(stdin()) : await readFile(file);
  let parsed: unknown;
  try {
    parsed = JSON.parse((kind.gzip ? gunzipSync(raw) : raw).toString("utf8"));
  } catch (error) {
    throw new Error(`${file === "-" ? "Standard input" : file} is not JSON: ${(error as Error).message}`);
  }
  const envelope = Array.isArray(parsed) ? { products: parsed } : (parsed as Record<string, unknown>);
  return Buffer.from(JSON.stringify(envelope));
}

/** The body that sends `file` ("-": standard input, taken from `stdin` only then) as `kind` says. */
export async function importBody(file: string, kind: FileKind, stdin: () => Readable): Promise<ImportBody> {
  if (kind.format === "json") {
    const json = await jsonBody(file, kind, stdin);
    return { size: json.length, open: () => json, canResend: () => true };
  }
  if (file === "-") {
    let read = false;
    return {
      size: undefined,
      open() {
        read = true;
        return stdin();
      },
      canResend: () => !read,
    };
  }
  const { size } = await stat(file);
  return { size, open: () => createReadStream(file, { highWaterMark: READ_BYTES }), canResend: () => true };
}
