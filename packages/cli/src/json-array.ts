// NDJSON turned into one JSON array as it streams: what `export --format json` writes, a file
// `import` takes back. A record's JSON holds no raw newline, so the newlines alone delimit records.
import { Transform } from "node:stream";

const NEWLINE = 0x0a;

/** A transform from NDJSON bytes to a JSON array of the same records, one a line; blank lines are dropped. */
export function ndjsonToJsonArray(): Transform {
  let started = false;
  // Inside a record that has not ended yet; a record ended and waits for the next one's comma.
  let inRecord = false;
  let ended = false;
  const piece = (chunk: Buffer, from: number, to: number, out: (Buffer | string)[]) => {
    if (to <= from) return;
    if (ended) out.push(",\n");
    ended = false;
    inRecord = true;
    out.push(chunk.subarray(from, to));
  };
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      const out: (Buffer | string)[] = [];
      if (!started) out.push("[\n");
      started = true;
      let from = 0;
      for (let at = chunk.indexOf(NEWLINE); at !== -1; at = chunk.indexOf(NEWLINE, from)) {
        piece(chunk, from, at, out);
        if (inRecord) ended = true;
        inRecord = false;
        from = at + 1;
      }
      piece(chunk, from, chunk.length, out);
      done(null, Buffer.concat(out.map((part) => (typeof part === "string" ? Buffer.from(part) : part))));
    },
    flush(done) {
      done(null, `${started ? "" : "["}\n]\n`);
    },
  });
}
