// Sites: the schema of a (siteType, siteId) pair and its stable string key.
import * as v from "valibot";
import { CatalogError } from "./errors.ts";

// Text with a lone surrogate has no UTF-8 form: a store that writes UTF-8 (PostgreSQL) would
// write U+FFFD in its place, making two such sites one. NUL is a byte PostgreSQL's text refuses.
const SiteField = v.pipe(
  v.string("Must be a string"),
  v.check((s) => s.trim() !== "", "Must not be empty or blank"),
  v.maxLength(256, "Must be at most 256 characters"),
  v.check((s) => s.isWellFormed(), "Must be well-formed Unicode (no lone surrogates)"),
  v.check((s) => !s.includes("\u0000"), "Must not contain NUL (U+0000)"),
);

/** A tenant's catalog: the pair (siteType, siteId). Products live in exactly one site. */
export const SiteSchema = v.strictObject({ siteId: SiteField, siteType: SiteField });

/** A site, as configured and as passed to every catalog and store operation. */
export type Site = Readonly<v.InferOutput<typeof SiteSchema>>;

/** A stable string form of a site, unique per (siteType, siteId) pair, for map keys. */
export function siteKey(site: Site): string {
  // The length says where siteType ends, whatever characters either string holds; a lookup makes
  // this key two or three times, and JSON.stringify of an array took twice as long.
  return `${site.siteType.length}:${site.siteType}:${site.siteId}`;
}

/** `site` when `SiteSchema` accepts it; else `VALIDATION_FAILED` with a problem per bad name. */
export function checkSite(site: Site): Site {
  const result = v.safeParse(SiteSchema, site);
  if (result.success) return site;
  const problems = result.issues.map((issue) => ({
    pointer: `/${(issue.path ?? []).map((item) => String(item.key)).join("/")}`,
    message: issue.message,
  }));
  throw new CatalogError("VALIDATION_FAILED", `Invalid site: ${problems[0]?.pointer} ${problems[0]?.message}`, {
    problems,
  });
}
