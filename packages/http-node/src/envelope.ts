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

function siteField(value: unknown, name: string, problems: ProblemEntry[]): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "string") problems.push({ pointer: `/${name}`, message: "Must be a string" });
  else if (value.trim() === "") problems.push({ pointer: `/${name}`, message: "Must not be empty or blank" });
  else return value;
  return undefined;
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
        pointer: `/${key.replaceAll("~", "~0").replaceAll("/", "~1")}`,
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
