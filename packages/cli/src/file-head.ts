// The start of a file, read to tell what it is before it is sent: a CSV's or TSV's header record,
// an XML document's root element. Only as much as that needs is read, never the whole file: a
// catalog may be gigabytes, and its header is the first line.
import { createReadStream } from "node:fs";
import type { Readable } from "node:stream";
import { StringDecoder } from "node:string_decoder";
import { createGunzip } from "node:zlib";

/** Most characters read from a file's start to find what is looked for: a header is never longer. */
export const HEAD_LIMIT = 1 << 20;

// Small reads: the header is usually in the first one.
const CHUNK_BYTES = 16 * 1024;

/** The start of a file as text, and whether it is the whole file. */
export interface FileHead {
  readonly text: string;
  readonly ended: boolean;
}

/**
 * Reads `file` (gunzipped when `gzip`) as UTF-8 until `enough` says its text so far holds what is
 * looked for, `HEAD_LIMIT` characters were read, or the file ends; then stops reading.
 */
export async function readHead(file: string, gzip: boolean, enough: (text: string) => boolean): Promise<FileHead> {
  const raw = createReadStream(file, { highWaterMark: CHUNK_BYTES });
  const source: Readable = gzip ? raw.pipe(createGunzip({ chunkSize: CHUNK_BYTES })) : raw;
  // An error of the raw file reaches the gunzip stream only through this.
  if (gzip) raw.once("error", (error) => source.destroy(error));
  const decoder = new StringDecoder("utf8");
  let text = "";
  try {
    for await (const chunk of source as AsyncIterable<Buffer>) {
      text += decoder.write(chunk);
      if (enough(text) || text.length >= HEAD_LIMIT) return { text, ended: false };
    }
    return { text: text + decoder.end(), ended: true };
  } finally {
    source.destroy();
    raw.destroy();
  }
}

/**
 * The names of the header of a CSV (quoted names, `""` in them) or TSV (no quoting), separated by
 * `delimiter`: the first record of `text`, a byte order mark left out. Undefined while the record
 * is not complete in `text` (unless `ended`: the file ends with it).
 */
export function headerNames(text: string, delimiter: string, quoted: boolean, ended = false): string[] | undefined {
  const names: string[] = [];
  let name = "";
  let inQuotes = false;
  let start = text.startsWith("\uFEFF") ? 1 : 0;
  for (let i = start; i < text.length; i++) {
    const char = text[i] as string;
    if (inQuotes) {
      if (char !== '"') name += char;
      else if (text[i + 1] === '"') {
        name += '"';
        i++;
      } else if (i + 1 === text.length && !ended) return undefined;
      else inQuotes = false;
    } else if (quoted && char === '"' && i === start) {
      inQuotes = true;
    } else if (char === delimiter) {
      names.push(name);
      name = "";
      start = i + 1;
    } else if (char === "\n" || char === "\r") {
      names.push(name);
      return names;
    } else {
      name += char;
    }
  }
  if (!ended || inQuotes) return undefined;
  names.push(name);
  return names;
}

/**
 * The local name of an XML document's root element (`rss`, `feed`), past the declaration,
 * comments, processing instructions and DOCTYPE; undefined while `text` does not reach it.
 */
export function rootElement(text: string): string | undefined {
  const prolog = /^(?:\s+|<\?[\s\S]*?\?>|<!--[\s\S]*?-->|<!DOCTYPE(?:[^<>[]|\[[\s\S]*?\])*>)*/;
  const body = text.replace(/^\uFEFF/, "");
  const rest = body.slice(prolog.exec(body)?.[0].length ?? 0);
  const tag = /^<([A-Za-z_][\w.:-]*)[\s/>]/.exec(rest);
  if (tag === undefined || tag === null) return undefined;
  const name = tag[1] as string;
  return name.slice(name.indexOf(":") + 1);
}
