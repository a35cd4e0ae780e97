// The `Idempotency-Key` header of an import, and the fingerprint of its request: what tells a
// retry (the same request again) from another request sent under the same key.
import { createHash, type Hash } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { CatalogError, Fingerprint, keyProblem, type Site, siteKey } from "@catalog-kit/catalog-core";
import type { ProblemEntry } from "./problem.ts";
import { READING } from "./query-params.ts";

/** The name of the request header. */
export const KEY_HEADER = "Idempotency-Key";
/** The header of an answer given again from the record of an earlier import. */
export const REPLAYED_HEADER: Readonly<Record<string, string>> = { "idempotent-replayed": "true" };

/**
 * The request's idempotency key: 1 to 255 visible ASCII characters, or the same as a structured
 * field string (`"..."`), its quotes removed. Absent: `undefined`; anything else is
 * `VALIDATION_FAILED` naming the header.
 */
export function readKey(req: IncomingMessage): string | undefined {
  const header = req.headers["idempotency-key"];
  if (header === undefined) return undefined;
  // Sent twice, Node joins the two with ", ", which no key may hold.
  const raw = Array.isArray(header) ? header.join(", ") : header;
  const quoted = /^"((?:[^"\\]|\\["\\])*)"$/.exec(raw);
  const key = quoted ? (quoted[1] as string).replace(/\\(["\\])/g, "$1") : raw;
  const problem = keyProblem(key);
  if (problem === undefined) return key;
  const entry: ProblemEntry = { header: KEY_HEADER, message: problem };
  throw new CatalogError("VALIDATION_FAILED", `Invalid ${KEY_HEADER} header: ${problem}`, { problems: [entry] });
}

/** The hash of a body, fed the decoded bytes while they arrive. */
export function bodyHash(): Hash {
  return createHash("sha256");
}

/** The options of an import that identify it besides its body. */
export interface KeyedRequest {
  readonly mode: string | undefined;
  readonly missing: string | undefined;
  readonly dryRun: boolean;
  readonly allowEmpty: boolean;
  /** How a document is read (`profile`, `shopUrl`, ...), as the query gave them; other names are not read. */
  readonly reading: Readonly<Record<string, string | undefined>>;
}

/**
 * The fingerprint of an import request: its method, path, site, `mode` and `missing`, `dryRun`, `allowEmpty`,
 * reading options, `Content-Type`, and the SHA-256 of its decoded body (`body`, read to its end first).
 */
export function requestFingerprint(req: IncomingMessage, path: string, site: Site, options: KeyedRequest, body: Hash) {
  const print = new Fingerprint();
  // Absent and given are told apart: a profile named reads the same bytes into another answer.
  for (const { name } of READING) {
    const value = options.reading[name];
    print.part(value === undefined ? "" : `=${value}`);
  }
  return (
    print
      .part(req.method ?? "")
      .part(path)
      .part(siteKey(site))
      // One part for both, so that the print of a request without `missing` is what it was before it existed.
      .part(`${options.mode ?? "upsert"}${options.missing === undefined ? "" : `:${options.missing}`}`)
      .part(String(options.dryRun))
      .part(String(options.allowEmpty))
      .part(req.headers["content-type"] ?? "")
      .part(body.digest())
      .digest()
  );
}
