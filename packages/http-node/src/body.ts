// What a request body is, from its headers and its bytes: the media type, the coding, the JSON it
// holds. Reading the bytes is body-stream.ts.
import { isUtf8 } from "node:buffer";
import type { IncomingMessage } from "node:http";
import { HttpError } from "./problem.ts";

/** Default request body limit: 50 MiB. */
export const DEFAULT_MAX_BODY_BYTES = 52_428_800;

/** The media type of a Content-Type (lower case, no parameters), or `undefined` unless its charset is UTF-8 or not given. */
export function mediaType(contentType: string | undefined): string | undefined {
  if (contentType === undefined) return undefined;
  const semi = contentType.indexOf(";");
  const type = (semi === -1 ? contentType : contentType.slice(0, semi)).trim().toLowerCase();
  const params = semi === -1 ? "" : contentType.slice(semi + 1).toLowerCase();
  const charset = /(?:^|;)\s*charset\s*=\s*"?([^";\s]*)/.exec(params)?.[1];
  return charset === undefined || charset === "utf-8" || charset === "utf8" ? type : undefined;
}

/**
 * Throws `UNSUPPORTED_MEDIA_TYPE` unless the content type is JSON (`application/json` or `+json`)
 * in UTF-8; `alternatives` names the other types the operation takes, for the message.
 */
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
