// Sites: the schema of a (siteType, siteId) pair and its stable string key.
import * as v from "valibot";

const SiteField = v.pipe(
  v.string("Must be a string"),
  v.check((s) => s.trim() !== "", "Must not be empty or blank"),
  v.maxLength(256, "Must be at most 256 characters"),
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
