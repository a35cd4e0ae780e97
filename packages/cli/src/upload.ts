// One try of an import request. The body waits for the server's 100 Continue, so that a refusal
// it can make from the headers alone (a token, a declared size) comes before a byte is sent; an
// answer that arrives while the body is still going out (a bad row, a limit) stops the upload
// and is the outcome: the broken pipe that follows it is not.
import { request as httpRequest, type IncomingMessage, type OutgoingHttpHeaders } from "node:http";
import { request as httpsRequest } from "node:https";
import type { Readable } from "node:stream";
import type { ImportBody } from "./import-body.ts";
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
    const req = request(url, { method: "POST", headers: { ...headers, expect: "100-continue" } });
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
      data.on("data", (chunk: Buffer) => {
        sent += chunk.length;
        onBytes(chunk.length);
      });
      data.once("error", (error) => {
        unreadable = error;
        req.destroy(error);
      });
      data.pipe(req);
    };
    const waiting = setTimeout(start, CONTINUE_WAIT_MS);
    req.once("continue", start);

    req.once("response", (res) => {
      answered = true;
      clearTimeout(waiting);
      // Ended: the whole body was handed to the request, whether or not the socket has flushed it.
      const early = !req.writableEnded;
      if (early && source !== undefined) {
        source.unpipe(req);
        source.destroy();
      }
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
      if (unreadable === undefined) resolve(unanswered(error));
      else reject(unreadable);
    });
  });
}
