// One try of an import request. The body waits for the server's 100 Continue, so that a refusal
// it can make from the headers alone (a token, a declared size) comes before a byte is sent; an
// answer that arrives while the body is still going out (a bad row, a limit) stops the upload
// and is the outcome: the broken pipe that follows it is not.
import { type ClientRequest, request as httpRequest, type IncomingMessage, type OutgoingHttpHeaders } from "node:http";
import { request as httpsRequest } from "node:https";
import type { Readable } from "node:stream";
import type { ImportBody } from "./import-body.ts";
import { readPastReset } from "./read-past-reset.ts";
import { type Answered, type Outcome, retryAfterOf, unanswered } from "./retry.ts";

/** The server's answer to an import. */
export interface UploadAnswer extends Answered {
  /** `Idempotent-Replayed: true`: the server had applied this import before and answers as it did then. */
  readonly replayed: boolean;
  readonly text: string;
  /** Body bytes handed to the connection when the answer came. */
  readonly sent: number;
  /** True when the answer came before the whole body was sent. */
  readonly early: boolean;
}

// How long to wait for 100 Continue before sending anyway, as curl does: something between the
// command and the server may not pass it on.
const CONTINUE_WAIT_MS = 1_000;

function answerOf(res: IncomingMessage, text: string, sent: number, early: boolean): Outcome<UploadAnswer> {
  return {
    kind: "answer",
    answer: {
      status: res.statusCode ?? 0,
      retryAfter: retryAfterOf(res),
      replayed: String(res.headers["idempotent-replayed"]).toLowerCase() === "true",
      text,
      sent,
      early,
    },
  };
}

// Resolves when the request takes more, or is gone.
function drained(req: ClientRequest): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      req.off("drain", done);
      req.off("close", done);
      resolve();
    };
    req.on("drain", done);
    req.on("close", done);
  });
}

// Sends the body with backpressure until its end, or until the server answered or reset the
// connection.
async function pump(source: Readable, req: ClientRequest, onBytes: (bytes: number) => void, stop: () => boolean) {
  for await (const chunk of source as AsyncIterable<Buffer>) {
    if (stop() || req.destroyed) return;
    onBytes(chunk.length);
    if (!req.write(chunk)) await drained(req);
  }
  if (!stop() && !req.destroyed) req.end();
}

/**
 * POSTs `body` to `url`; `onBytes` hears of every chunk handed to the connection. Rejects only
 * when the body cannot be read (a file that fails mid-way).
 */
export function upload(
  url: URL,
  headers: OutgoingHttpHeaders,
  body: ImportBody,
  onBytes: (bytes: number) => void,
): Promise<Outcome<UploadAnswer>> {
  const request = url.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    // A connection of its own (no agent): its socket's writes are made to survive a reset.
    const req = request(url, { method: "POST", agent: false, headers: { ...headers, expect: "100-continue" } });
    let reset: Error | undefined;
    req.once("socket", (socket) =>
      readPastReset(socket, (error) => {
        reset ??= error;
      }),
    );
    let started = false;
    let source: Readable | undefined;
    let sent = 0;
    let answered = false;
    let unreadable: Error | undefined;

    const start = () => {
      clearTimeout(waiting);
      if (answered || started || req.destroyed) return;
      started = true;
      const data = body.open();
      if (Buffer.isBuffer(data)) {
        sent = data.length;
        onBytes(sent);
        req.end(data);
        return;
      }
      source = data;
      const count = (bytes: number) => {
        sent += bytes;
        onBytes(bytes);
      };
      pump(data, req, count, () => answered || reset !== undefined).catch((error: Error) => {
        // The source destroyed below, once answered or failed, is no failure of its own.
        if (answered || req.destroyed) return;
        unreadable = error;
        req.destroy(error);
      });
    };
    const waiting = setTimeout(start, CONTINUE_WAIT_MS);
    req.once("continue", start);

    req.once("response", (res) => {
      answered = true;
      clearTimeout(waiting);
      // Ended: the whole body was handed to the request, whether or not the socket has flushed it.
      const early = !req.writableEnded;
      if (early) source?.destroy();
      let text = "";
      let settled = false;
      const settle = () => {
        if (settled) return;
        settled = true;
        resolve(answerOf(res, text, sent, early));
        // A request cut short leaves its connection unusable: let it go.
        if (early) req.destroy();
      };
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        text += chunk;
      });
      res.once("end", settle);
      // A server that closes right after its answer may cut the answer's last bytes: what came is shown.
      res.once("close", settle);
      res.on("error", () => {});
    });
    req.on("error", (error) => {
      if (answered) return;
      clearTimeout(waiting);
      source?.destroy();
      // The reset met by a write says more than the hang-up that ends the connection after it.
      if (unreadable === undefined) resolve(unanswered(reset ?? error));
      else reject(unreadable);
    });
  });
}
