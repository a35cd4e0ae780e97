// Imported records checked against the product schema, every problem located (a JSON pointer, a
// CSV row and column, an NDJSON line and pointer), and the list of problems an error carries.
import * as v from "valibot";
import { CatalogError, MAX_PROBLEMS, type Problem } from "./errors.ts";
import { checkProductFast, PRODUCT_FIELDS, type Product, ProductSchema } from "./product.ts";

/** Where a problem lies, before its message: a pointer, or a CSV row and column. */
export type Place = Omit<Problem, "message">;

/** Locates a problem in the request, given the record's index and the path inside the record. */
export type Locator = (index: number, path: readonly PropertyKey[]) => Place;

/** Records decoded from part of an import, each with its position (an index, a line or a row). */
export interface RecordPart {
  readonly records: readonly unknown[];
  readonly positions: readonly number[];
  /** Records the part held, the unreadable ones (a problem of structure) included; `records.length` when absent. */
  readonly count?: number;
}

/** How a document is read: once `counting`, its records are only counted, not decoded (an import past its limit). */
export interface Reading {
  counting: boolean;
}

/** The codes of errors that list located problems. */
export type ProblemCode =
  | "VALIDATION_FAILED"
  | "INVALID_JSON"
  | "INVALID_CSV"
  | "INVALID_XML"
  | "SKU_CONFLICT"
  | "PRODUCT_NOT_FOUND";

// The whole list of problems behind an error that carries only the first `MAX_PROBLEMS`: what an
// import's report keeps. Beside the error, not on it, so that the error a caller holds stays small.
const REPORTS = new WeakMap<CatalogError, readonly Problem[]>();

/** Every problem an error's `Problems` kept (up to its `keep`), of which the error lists the first `MAX_PROBLEMS`. */
export function reportOf(error: CatalogError): readonly Problem[] {
  return REPORTS.get(error) ?? error.problems;
}

/** Collects problems up to the cap (`keep`, by default `MAX_PROBLEMS`) while counting them all. */
export class Problems {
  readonly list: Problem[] = [];
  count = 0;
  keep: number;

  constructor(keep: number = MAX_PROBLEMS) {
    this.keep = keep;
  }

  add(problem: Problem): void {
    this.count++;
    if (this.list.length < this.keep) this.list.push(problem);
  }

  /** Keeps up to `keep` problems from now on (an import's report keeps more than its error lists). */
  keepUpTo(keep: number): void {
    this.keep = Math.max(this.keep, keep);
  }

  toError(code: ProblemCode, what: string): CatalogError {
    const s = this.count === 1 ? "" : "s";
    const error = new CatalogError(code, `${what}: ${this.count} problem${s} found; nothing was written`, {
      problems: this.list,
      errorCount: this.count,
    });
    if (this.list.length > MAX_PROBLEMS) REPORTS.set(error, this.list);
    return error;
  }

  throwIfAny(code: ProblemCode, what: string): void {
    if (this.count > 0) throw this.toError(code, what);
  }
}

/** A JSON Pointer (RFC 6901) from path segments. */
export function toPointer(path: readonly PropertyKey[]): string {
  let pointer = "";
  for (const segment of path) pointer += `/${String(segment).replaceAll("~", "~0").replaceAll("/", "~1")}`;
  return pointer;
}

const FIELDS: ReadonlySet<string> = new Set(PRODUCT_FIELDS);

// The schema stops at a record's first unknown field; every one is a problem of its own.
function unknownFields(record: unknown, at: (path: readonly PropertyKey[]) => Place, problems: Problems): unknown {
  if (typeof record !== "object" || record === null || Array.isArray(record)) return record;
  let known: Record<string, unknown> | undefined;
  for (const key of Object.keys(record)) {
    if (FIELDS.has(key)) continue;
    problems.add({ ...at([key]), message: `Unknown field "${key}"` });
    known ??= { ...record };
    delete known[key];
  }
  return known ?? record;
}

/**
 * Validates the records from `from` to `to` (all by default), adding each problem to `problems`;
 * the products of invalid records are left out.
 */
export function checkProducts(
  records: readonly unknown[],
  locate: Locator,
  problems: Problems,
  from = 0,
  to = records.length,
): Product[] {
  const products: Product[] = new Array(to - from);
  for (let i = from; i < to; i++) {
    const fast = checkProductFast(records[i]);
    if (fast !== undefined) {
      products[i - from] = fast;
      continue;
    }
    const at = (path: readonly PropertyKey[]) => locate(i, path);
    const result = v.safeParse(ProductSchema, unknownFields(records[i], at, problems));
    if (result.success) {
      products[i - from] = result.output;
      continue;
    }
    for (const issue of result.issues) {
      const path = issue.path?.map((item) => item.key as PropertyKey) ?? [];
      problems.add({ ...at(path), message: issue.message });
    }
  }
  return products;
}
