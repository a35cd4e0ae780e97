// Reading a request body: declared and actual size limits, content types, the idle cut-off, JSON
// parsing.
import { isUtf8 } from "node:buffer";
import type { IncomingMessage, ServerResponse } from "node:http";
import { promisify } from "node:util";
import { gunzip } from "node:zlib";
import { HttpError } from "./problem.ts";

const gunzipAsync = promisify(gunzip);

/** Default request body limit: 50 MiB. */
export const DEFAULT_MAX_BODY_BYTES = 52_428_800;
/** Default of `HandlerOptions.bodyIdleTimeoutMs`: a body silent this long is cut off. */
export const DEFAULT_BODY_IDLE_TIMEOUT_MS = 10_000;

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

/** The media type of a Content-Type (lower case, no parameters), or `undefined` unless its charset is UTF-8 or not given. */
export function mediaType(contentType: string | undefined): string | undefined {
  if (contentType === undefined) return undefined;
  const semi = contentType.indexOf(";");
  const type = (semi === -1 ? contentType : contentType.slice(0, semi)).trim().toLowerCase();
  const params = semi === -1 ? "" : contentType.slice(semi + 1).toLowerCase();
  const charset = /(?:^|;)\s*charset\s*=\s*"?([^";\s]*)/.exec(params)?.[1];
  return charset === undefined || charset === "utf-8" || charset === "utf8" ? type : undefined;
}

/** Throws `UNSUPPORTED_MEDIA_TYPE` unless the content type is JSON (`application/json` or `+json`) in UTF-8. */
export function requireJson(contentType: string | undefined, alternatives = ""): void {
  const type = mediaType(contentType);
  if (type === "application/json" || (type?.startsWith("application/") && type.endsWith("+json"))) return;
  throw new HttpError(
    "UNSUPPORTED_MEDIA_TYPE",
    `Content-Type must be application/json${alternatives} (UTF-8); got ${contentType === undefined ? "none" : JSON.stringify(contentType)}`,
  );
}

/** Whether the body is gzip (`Content-Encoding: gzip`); any coding other than gzip or identity is `UNSUPPORTED_MEDIA_TYPE`. */
export function isGzip(req: IncomingMessage): boolean {
  const coding = req.headers["content-encoding"]?.trim().toLowerCase();
  if (coding === undefined || coding === "" || coding === "identity") return false;
  if (coding === "gzip" || coding === "x-gzip") return true;
  throw new HttpError(
    "UNSUPPORTED_MEDIA_TYPE",
    `Content-Encoding must be gzip or identity; got ${JSON.stringify(coding)}`,
    {
      headers: { "accept-encoding": "gzip" },
    },
  );
}

/** The `INVALID_ENCODING` error of a body that does not decode as its Content-Encoding says. */
export function invalidEncoding(cause: unknown): HttpError {
  const reason = cause instanceof Error ? cause.message : "corrupt data";
  return new HttpError("INVALID_ENCODING", "The request body is not valid gzip", { problems: [{ message: reason }] });
}

/** Decodes a gzip body read whole, up to `limit` decoded bytes (decoding stops there). */
export async function gunzipBody(body: Buffer, limit: number): Promise<Buffer> {
  try {
    return await gunzipAsync(body, { maxOutputLength: limit });
  } catch (error) {
    if ((error as { code?: string }).code === "ERR_BUFFER_TOO_LARGE") {
      throw new HttpError(
        "PAYLOAD_TOO_LARGE",
        `The decoded request body may be at most ${limit} bytes; this one has more`,
        {
          limit,
          received: limit + 1,
        },
      );
    }
    throw invalidEncoding(error);
  }
}

/**
 * Under startServer, a client that asked to wait (Expect: 100-continue) is told to send only
 * now, after its token, content type and size were accepted. Node already did it otherwise.
 */
export function askedToContinue(req: IncomingMessage, res: ServerResponse): void {
  if (req.headers.expect?.toLowerCase() === "100-continue" && !(res as { _sent100?: boolean })._sent100) {
    res.writeContinue();
  }
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
  askedToContinue(req, res);
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
