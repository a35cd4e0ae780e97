// The JSON envelope of an import request: the products field, and the deprecated siteId/siteType
// body fields.
import { SiteSchema, toPointer } from "@catalog-kit/catalog-core";
import * as v from "valibot";
import type { ProblemEntry } from "./problem.ts";

/** The parts of an import body the handler reads itself; the payload goes to the catalog untouched. */
export interface Envelope {
  readonly siteId: string | undefined;
  readonly siteType: string | undefined;
  readonly payload: unknown;
  /** Whether the body used the deprecated `siteId`/`siteType` fields. */
  readonly deprecated: boolean;
  readonly problems: readonly ProblemEntry[];
}

// The site fields are checked by the site's own schema. A name longer than any site may have is
// no malformed request but a site that does not exist: it goes on, to be answered SITE_NOT_FOUND.
function siteField(value: unknown, name: "siteId" | "siteType", problems: ProblemEntry[]): string | undefined {
  if (value === undefined) return undefined;
  const schema = SiteSchema.entries[name];
  if (v.is(schema, value)) return value; // no result object on the usual path: imports are hot
  const result = v.safeParse(schema, value);
  if (result.success) return result.output;
  let valid = true;
  for (const issue of result.issues) {
    if (issue.type === "max_length") continue;
    problems.push({ pointer: `/${name}`, message: issue.message });
    valid = false;
  }
  return valid ? (value as string) : undefined;
}

/**
 * Splits an import body `{ siteId?, siteType?, <field> }` into the site it names and the payload.
 * Unknown top-level fields are problems (never silently dropped); the payload is not looked at.
 */
export function readEnvelope(body: unknown, field: string): Envelope {
  const problems: ProblemEntry[] = [];
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    problems.push({ pointer: "", message: `Must be a JSON object with a "${field}" field` });
    return { siteId: undefined, siteType: undefined, payload: undefined, deprecated: false, problems };
  }
  const record = body as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    if (key !== field && key !== "siteId" && key !== "siteType") {
      problems.push({
        pointer: toPointer([key]),
        message: `Unknown field "${key}"`,
      });
    }
  }
  const deprecated = Object.hasOwn(record, "siteId") || Object.hasOwn(record, "siteType");
  const siteId = siteField(record.siteId, "siteId", problems);
  const siteType = siteField(record.siteType, "siteType", problems);
  const payload = Object.hasOwn(record, field) ? record[field] : undefined;
  return { siteId, siteType, payload, deprecated, problems };
}
