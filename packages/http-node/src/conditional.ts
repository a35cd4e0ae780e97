// The preconditions of RFC 9110 on one product: `If-None-Match` on a read (weak comparison, a
// 304 when the client's copy is current) and `If-Match` on a write (strong comparison, checked by
// the catalog atomically with the write). The header is parsed here; the product's tag is the core's.
import type { IncomingMessage, ServerResponse } from "node:http";
import { CatalogError, type Product, productTag } from "@catalog-kit/catalog-core";
import type { ProblemEntry } from "./problem.ts";

/** An entity tag of a precondition header: its opaque tag, quotes included, and whether it is weak. */
export interface EntityTag {
  readonly weak: boolean;
  readonly opaque: string;
}

/** A precondition header: any current product (`*`), or a list of entity tags. */
export type TagList = "*" | readonly EntityTag[];

// One element of an entity-tag list (RFC 9110, 8.8.3 and 5.6.1): empty elements are allowed, and
// an opaque tag may hold a comma, so the list is read element by element, not split.
const ELEMENT = /[ \t]*(?:(W\/)?("[\x21\x23-\x7e\x80-\xff]*"))?[ \t]*(?:,|$)/y;

function malformed(header: string): CatalogError {
  const message = `Must be * or a comma-separated list of entity tags ("..." or W/"..."), as an ETag header gives them`;
  const entry: ProblemEntry = { header, message };
  return new CatalogError("VALIDATION_FAILED", `Invalid ${header} header: ${message}`, { problems: [entry] });
}

/** Reads a precondition header (`If-Match`, `If-None-Match`); absent: `undefined`; malformed: `VALIDATION_FAILED` naming it. */
export function readTagList(req: IncomingMessage, header: "If-Match" | "If-None-Match"): TagList | undefined {
  const raw = req.headers[header.toLowerCase()];
  if (raw === undefined) return undefined;
  // Node joins a header sent twice with ", ", which is the list of both.
  const value = Array.isArray(raw) ? raw.join(", ") : raw;
  if (value.trim() === "*") return "*";
  const tags: EntityTag[] = [];
  for (let at = 0; at < value.length; ) {
    ELEMENT.lastIndex = at;
    const match = ELEMENT.exec(value);
    if (match === null || ELEMENT.lastIndex === at) throw malformed(header);
    if (match[2] !== undefined) tags.push({ weak: match[1] !== undefined, opaque: match[2] });
    at = ELEMENT.lastIndex;
  }
  if (tags.length === 0) throw malformed(header);
  return tags;
}

/**
 * The `ifMatch` of a catalog call: a weak tag never matches under strong comparison, so only
 * the strong ones are passed (none left: no product matches, and the write is refused).
 */
export function strongTags(list: TagList): readonly string[] | "*" {
  return list === "*" ? "*" : list.filter((tag) => !tag.weak).map((tag) => tag.opaque);
}

/** Whether a read's `If-None-Match` names the product's current copy (weak comparison): it is answered 304 then. */
export function noneMatchHolds(list: TagList, tag: string): boolean {
  return list !== "*" && !list.some((entry) => entry.opaque === tag);
}

/** The `ETag` header of an answer about `product`. */
export const etagOf = (product: Product): Readonly<Record<string, string>> => ({ etag: productTag(product) });

/** Answers 304: the client's copy is current; no body, its tag, the request id and the request's `shared` headers only. */
export function sendNotModified(
  res: ServerResponse,
  tag: string,
  requestId: string,
  shared?: Readonly<Record<string, string>>,
): void {
  res.writeHead(
    304,
    shared === undefined
      ? { etag: tag, "x-request-id": requestId }
      : { ...shared, etag: tag, "x-request-id": requestId },
  );
  res.end();
}
