// Reading a request body as a stream: decoded (gzip) and counted while it arrives, cut off past
// its limit or when silent, handed on chunk by chunk with backpressure.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Readable } from "node:stream";
import { createGunzip } from "node:zlib";
import { askedToContinue, ClientGoneError, invalidEncoding, tooLarge } from "./body.ts";
import { HttpError } from "./problem.ts";

/** Default of `HandlerOptions.maxStreamBytes`: 1 GiB. */
export const DEFAULT_MAX_STREAM_BYTES = 1_073_741_824;

// Chunks decoded ahead of the reader before the body is paused: about half a megabyte.
const HIGH_WATER = 8;

/**
 * The body as an async iterable of Buffers, decoded when `gzip`. Both the bytes received and
 * the bytes decoded may be at most `limit`: past it, the iteration fails with
 * `PAYLOAD_TOO_LARGE` and decoding stops at once (a gzip bomb costs one chunk). A body silent for
 * `idleMs` fails with `REQUEST_TIMEOUT`, a client gone with `ClientGoneError`, corrupt gzip with
 * `INVALID_ENCODING`. Ending the iteration early stops reading, leaving the connection able to
 * carry an answer. `onReceived` hears the count of bytes received so far, chunk by chunk.
 */
export function streamBody(
  req: IncomingMessage,
  res: ServerResponse,
  limit: number,
  idleMs: number,
  gzip: boolean,
  onReceived?: (bytes: number) => void,
): AsyncIterable<Buffer> {
  askedToContinue(req, res);
  const gunzip = gzip ? createGunzip() : undefined;
  const source: Readable = gunzip ?? req;
  const queue: Buffer[] = [];
  let received = 0;
  let decoded = 0;
  let ended = false;
  let failure: unknown;
  let wake: (() => void) | undefined;

  // Silence only counts while nothing waits to be read: a slow store pauses the body, and the
  // client is not at fault for that.
  const idle = setTimeout(function onIdle() {
    if (queue.length > 0) idle.refresh();
    else fail(new HttpError("REQUEST_TIMEOUT", `The request body sent nothing for ${idleMs} ms`));
  }, idleMs);
  function stop(): void {
    clearTimeout(idle);
    req.off("data", onRaw);
    req.off("close", onClose);
    source.off("data", onData);
    source.off("end", onEnd);
    source.off("error", onError);
    if (gunzip !== undefined) {
      req.unpipe(gunzip);
      gunzip.destroy();
    }
    req.pause();
  }
  function fail(error: unknown): void {
    if (ended || failure !== undefined) return;
    failure = error;
    stop();
    wake?.();
  }
  function onRaw(chunk: Buffer): void {
    idle.refresh();
    received += chunk.length;
    onReceived?.(received);
    if (received > limit) fail(tooLarge(limit, received));
  }
  function onData(chunk: Buffer): void {
    decoded += chunk.length;
    if (decoded > limit) {
      fail(tooLarge(limit, decoded));
      return;
    }
    queue.push(chunk);
    if (queue.length >= HIGH_WATER) source.pause();
    wake?.();
  }
  function onEnd(): void {
    ended = true;
    stop();
    wake?.();
  }
  function onError(error: unknown): void {
    fail(
      gunzip === undefined ? new ClientGoneError("The request body failed while it was read") : invalidEncoding(error),
    );
  }
  function onClose(): void {
    if (!req.complete) fail(new ClientGoneError("The client closed the connection before sending its whole body"));
  }

  req.on("data", onRaw);
  req.on("close", onClose);
  source.on("data", onData);
  source.on("end", onEnd);
  source.on("error", onError);
  if (gunzip !== undefined) req.pipe(gunzip);

  return {
    [Symbol.asyncIterator]: () => ({
      async next(): Promise<IteratorResult<Buffer>> {
        for (;;) {
          if (failure !== undefined) throw failure;
          const chunk = queue.shift();
          if (chunk !== undefined) {
            if (queue.length === 0 && !ended) source.resume();
            return { value: chunk, done: false };
          }
          if (ended) return { value: undefined, done: true };
          await new Promise<void>((resolve) => {
            wake = resolve;
          });
          wake = undefined;
        }
      },
      async return(): Promise<IteratorResult<Buffer>> {
        if (!ended) fail(new ClientGoneError("The body was not read to its end"));
        return { value: undefined, done: true };
      },
    }),
  };
}
