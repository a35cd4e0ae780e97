// The merge rule, written once for every merge (a bulk import in mode "merge", a PATCH): a record
// carries some of a product's fields, names the product by id (else by sku), and changes only
// the fields it carries, `null` removing an optional one.
import * as v from "valibot";
import type { Place, Problems } from "./parse.ts";
import {
  checkProductFast,
  isProductKey,
  PRODUCT_FIELDS,
  type Product,
  ProductSchema,
  REQUIRED_FIELDS,
} from "./product.ts";

const FIELDS: ReadonlySet<string> = new Set(PRODUCT_FIELDS);
const REQUIRED: ReadonlySet<string> = new Set(REQUIRED_FIELDS);

/** A merge record, checked: the field that names its product, the key, and the fields it sets (`null`: removes). */
export interface Patch {
  readonly by: "id" | "sku";
  readonly key: string;
  readonly fields: Readonly<Record<string, unknown>>;
}

/** Where a problem of a record lies, given the path inside it. */
export type At = (path: readonly PropertyKey[]) => Place;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * The fields of a patch, checked for what holds whatever it merges onto: an object of known
 * fields, `null` only for optional ones. Each problem is added at its field; `undefined` then.
 */
export function readFields(record: unknown, at: At, problems: Problems): Record<string, unknown> | undefined {
  if (!isRecord(record)) {
    problems.add({ ...at([]), message: "Must be an object" });
    return undefined;
  }
  const before = problems.count;
  for (const name in record) {
    if (!FIELDS.has(name)) problems.add({ ...at([name]), message: `Unknown field "${name}"` });
    else if (record[name] === null && REQUIRED.has(name)) {
      problems.add({ ...at([name]), message: `Must not be null: every product has a ${name}` });
    }
  }
  return problems.count === before ? record : undefined;
}

/** The field that names a merge record's product: its `id`, else its `sku`; `undefined` when it has neither. */
export function namedBy(fields: Readonly<Record<string, unknown>>): "id" | "sku" | undefined {
  return fields.id !== undefined ? "id" : fields.sku !== undefined ? "sku" : undefined;
}

/**
 * A bulk merge's record, checked: its fields (`readFields`) and the key that names its product,
 * its `id`, else its `sku`; `undefined` with each problem added.
 */
export function readPatch(record: unknown, at: At, problems: Problems): Patch | undefined {
  const before = problems.count;
  const fields = readFields(record, at, problems);
  if (fields === undefined) return undefined;
  const by = namedBy(fields);
  if (by === undefined) {
    problems.add({ ...at(["id"]), message: "Must have an id or a sku, naming the product to change" });
    return undefined;
  }
  const key = fields[by];
  if (typeof key !== "string" || !isProductKey(key)) {
    // The schema words what is wrong with it.
    const issue = v.safeParse(ProductSchema.entries[by], key).issues?.[0];
    problems.add({ ...at([by]), message: issue?.message ?? "Must be a valid key" });
  }
  return problems.count === before ? { by, key: key as string, fields } : undefined;
}

/**
 * The product `fields` make of `base` (`undefined`: none, so they must be a whole product):
 * the fields given replace the base's, `null` removes one. Every problem of the result is added
 * at its field and `undefined` returned: a merge never leaves a product invalid.
 */
export function mergeFields(
  base: Product | undefined,
  fields: Readonly<Record<string, unknown>>,
  at: At,
  problems: Problems,
): Product | undefined {
  const merged: Record<string, unknown> = base === undefined ? {} : { ...base };
  for (const name in fields) {
    const value = fields[name];
    if (value === null) delete merged[name];
    else merged[name] = value;
  }
  const fast = checkProductFast(merged);
  if (fast !== undefined) return fast;
  const result = v.safeParse(ProductSchema, merged);
  if (result.success) return result.output;
  for (const issue of result.issues) {
    const path = issue.path?.map((item) => item.key as PropertyKey) ?? [];
    problems.add({ ...at(path), message: issue.message });
  }
  return undefined;
}
