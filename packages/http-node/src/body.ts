// Reading a request body: declared and actual size limits, content types, the idle cut-off, JSON
// parsing.
import { isUtf8 } from "node:buffer";
import type { IncomingMessage, ServerResponse } from "node:http";
import { HttpError } from "./problem.ts";

/** Default request body limit: 50 MiB. */
export const DEFAULT_MAX_BODY_BYTES = 52_428_800;
/** Default of `HandlerOptions.bodyIdleTimeoutMs`: a body silent this long is cut off. */
export const DEFAULT_BODY_IDLE_TIMEOUT_MS = 10_000;

/** The client went away before its body arrived: there is nobody to answer. */
export class ClientGoneError extends Error {
  override name = "ClientGoneError";
}

function tooLarge(limit: number, received: number): HttpError {
  return new HttpError(
    "PAYLOAD_TOO_LARGE",
    `The request body may be at most ${limit} bytes; this one has ${received}`,
    {
      limit,
      received,
    },
  );
}

/** Throws `UNSUPPORTED_MEDIA_TYPE` unless the content type is JSON (`application/json` or `+json`) in UTF-8. */
export function requireJson(contentType: string | undefined): void {
  if (contentType !== undefined) {
    const semi = contentType.indexOf(";");
    const type = (semi === -1 ? contentType : contentType.slice(0, semi)).trim().toLowerCase();
    const params = semi === -1 ? "" : contentType.slice(semi + 1).toLowerCase();
    const charset = /(?:^|;)\s*charset\s*=\s*"?([^";\s]*)/.exec(params)?.[1];
    const json = type === "application/json" || (type.startsWith("application/") && type.endsWith("+json"));
    if (json && (charset === undefined || charset === "utf-8" || charset === "utf8")) return;
  }
  throw new HttpError(
    "UNSUPPORTED_MEDIA_TYPE",
    `Content-Type must be application/json (UTF-8); got ${contentType === undefined ? "none" : JSON.stringify(contentType)}`,
  );
}

/**
 * Throws `PAYLOAD_TOO_LARGE` when the declared Content-Length is over the limit; returns the
 * declared length (`NaN` when none or not a number is declared).
 */
export function checkDeclaredSize(req: IncomingMessage, limit: number): number {
  const declared = Number(req.headers["content-length"]);
  if (declared > limit) throw tooLarge(limit, declared);
  return declared;
}

/**
 * Reads the whole body as one Buffer; call `checkDeclaredSize` first, so that a declared
 * Content-Length over the limit is refused before anything is read. A body that grows past the
 * limit is refused as soon as it does, and the rest is never buffered. A body that sends nothing
 * for `idleMs` is refused with `REQUEST_TIMEOUT`.
 */
export function readBody(
  req: IncomingMessage,
  res: ServerResponse,
  limit: number,
  idleMs = DEFAULT_BODY_IDLE_TIMEOUT_MS,
): Promise<Buffer> {
  // Under startServer, a client that asked to wait (Expect: 100-continue) is told to send only
  // now, after its token, content type and size were accepted. Node already did it otherwise.
  if (req.headers.expect?.toLowerCase() === "100-continue" && !(res as { _sent100?: boolean })._sent100) {
    res.writeContinue();
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    // Refreshed on every chunk, not re-created: a timer per chunk would cost more than the chunk.
    const idle = setTimeout(() => {
      cleanup();
      req.pause();
      reject(new HttpError("REQUEST_TIMEOUT", `The request body sent nothing for ${idleMs} ms`));
    }, idleMs);
    const cleanup = () => {
      clearTimeout(idle);
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("error", onGone);
      req.off("close", onGone);
    };
    const onData = (chunk: Buffer) => {
      idle.refresh();
      size += chunk.length;
      if (size > limit) {
        cleanup();
        req.pause();
        reject(tooLarge(limit, size));
      } else chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size));
    };
    const onGone = () => {
      cleanup();
      reject(new ClientGoneError("The client closed the connection before sending its whole body"));
    };
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("error", onGone);
    req.on("close", onGone);
  });
}

/** Decodes the body once and parses it; `INVALID_JSON` for bad UTF-8 or bad JSON. */
export function parseJson(body: Buffer): unknown {
  if (!isUtf8(body)) throw new HttpError("INVALID_JSON", "The request body is not valid UTF-8");
  let text = body.toString("utf8");
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  try {
    return JSON.parse(text);
  } catch (error) {
    const message = error instanceof Error ? error.message : "Malformed JSON";
    throw new HttpError("INVALID_JSON", "The request body is not valid JSON", { problems: [{ message }] });
  }
}
