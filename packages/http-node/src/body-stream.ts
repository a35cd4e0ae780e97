// Reading a request body, the one way it is done: decoded (gzip) and counted while it arrives,
// cut off past its limit, when silent or when the client leaves, handed on chunk by chunk with
// backpressure. A body read whole is this stream, collected.
import type { Hash } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Readable } from "node:stream";
import { createGunzip } from "node:zlib";
import { HttpError } from "./problem.ts";

/** Default of `HandlerOptions.maxStreamBytes`: 1 GiB. */
export const DEFAULT_MAX_STREAM_BYTES = 1_073_741_824;
/** Default of `HandlerOptions.bodyIdleTimeoutMs`: a body silent this long is cut off. */
export const DEFAULT_BODY_IDLE_TIMEOUT_MS = 10_000;

// Chunks decoded ahead of the reader before the body is paused: about half a megabyte.
const HIGH_WATER = 8;

/** The client went away before its body arrived: there is nobody to answer. */
export class ClientGoneError extends Error {
  override name = "ClientGoneError";
}

/** The `PAYLOAD_TOO_LARGE` error of a body past `limit` bytes, of which `received` were seen. */
export function tooLarge(limit: number, received: number): HttpError {
  return new HttpError(
    "PAYLOAD_TOO_LARGE",
    `The request body may be at most ${limit} bytes; this one has ${received}`,
    {
      limit,
      received,
    },
  );
}

/** The `INVALID_ENCODING` error of a body that does not decode as its Content-Encoding says. */
export function invalidEncoding(cause: unknown): HttpError {
  const reason = cause instanceof Error ? cause.message : "corrupt data";
  return new HttpError("INVALID_ENCODING", "The request body is not valid gzip", { problems: [{ message: reason }] });
}

/**
 * Throws `PAYLOAD_TOO_LARGE` when the declared Content-Length is over the limit, so that such a
 * body is refused before a byte of it is read; returns the declared length (`NaN` when none or
 * not a number is declared).
 */
export function checkDeclaredSize(req: IncomingMessage, limit: number): number {
  const declared = Number(req.headers["content-length"]);
  if (declared > limit) throw tooLarge(limit, declared);
  return declared;
}

// Under startServer, a client that asked to wait (Expect: 100-continue) is told to send only now,
// after its token, content type and size were accepted. Node already did it otherwise.
function askedToContinue(req: IncomingMessage, res: ServerResponse): void {
  if (req.headers.expect?.toLowerCase() === "100-continue" && !(res as { _sent100?: boolean })._sent100) {
    res.writeContinue();
  }
}

/** How a body is read. */
export interface BodyRead {
  /** Bytes the body may have, received and decoded alike. */
  readonly limit: number;
  /** Milliseconds it may send nothing while nothing waits to be read. */
  readonly idleMs: number;
  /** Whether it is gzip (`isGzip`), decoded as it arrives. */
  readonly gzip: boolean;
  /** Kept up to date with the count of bytes received (before decoding), chunk by chunk. */
  readonly tally?: { bytes: number };
  /** A hash fed every decoded byte, for the request's fingerprint. */
  readonly hash?: Hash | undefined;
  /** Told each chunk's size as it arrives (a rate limit); an error it answers cuts the body off. */
  readonly check?: ((bytes: number) => Error | undefined) | undefined;
}

/** A body being read: its chunks, and a way to stop reading it whether or not it was read. */
export interface BodyStream extends AsyncIterable<Buffer> {
  /**
   * Stops reading, once the request is answered or abandoned: a body nobody iterates to its end
   * would otherwise keep its idle timer, and so the process, alive.
   */
  close(): void;
}

/**
 * The body as an async iterable of Buffers, decoded when `gzip`. Both the bytes received and
 * the bytes decoded may be at most `limit`: past it, the iteration fails with
 * `PAYLOAD_TOO_LARGE` and decoding stops at once (a gzip bomb costs one chunk). A body silent for
 * `idleMs` fails with `REQUEST_TIMEOUT`, a client gone with `ClientGoneError`, corrupt gzip with
 * `INVALID_ENCODING`. Ending the iteration early stops reading, leaving the connection able to
 * carry an answer, as `close()` does. Reading starts at once, after a 100 Continue when the client
 * waits for one.
 */
export function streamBody(req: IncomingMessage, res: ServerResponse, read: BodyRead): BodyStream {
  const { limit, idleMs, tally, hash, check } = read;
  askedToContinue(req, res);
  const gunzip = read.gzip ? createGunzip() : undefined;
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
    // Refreshed, not re-created: a timer per chunk would cost more than the chunk.
    idle.refresh();
    received += chunk.length;
    if (tally !== undefined) tally.bytes = received;
    if (received > limit) fail(tooLarge(limit, received));
    else if (check !== undefined) {
      const refused = check(chunk.length);
      if (refused !== undefined) fail(refused);
    }
  }
  function onData(chunk: Buffer): void {
    decoded += chunk.length;
    if (decoded > limit) {
      fail(tooLarge(limit, decoded));
      return;
    }
    hash?.update(chunk);
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
  const close = () => {
    if (!ended) fail(new ClientGoneError("The body was not read to its end"));
  };

  return {
    close,
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
        close();
        return { value: undefined, done: true };
      },
    }),
  };
}

/**
 * The whole body as one Buffer: `streamBody`, collected, under the same rules. A body that grows
 * past the limit is refused as soon as it does, and the rest is never read.
 */
export async function readBody(req: IncomingMessage, res: ServerResponse, read: BodyRead): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of streamBody(req, res, read)) {
    chunks.push(chunk);
    size += chunk.length;
  }
  return chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size);
}
