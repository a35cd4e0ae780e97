// Google Merchant Center's product feed (TSV, CSV or RSS/Atom XML in the `g:` namespace): the shared
// feed rules, with Google's attribute list.
import { feedProfile } from "./feed.ts";
import { GOOGLE_ATTRIBUTES } from "./google-attributes.ts";
import { isMetaHeader } from "./meta-attributes.ts";
import type { ImportProfile } from "./profile.ts";

/** What a Google feed's header names: the attributes Google requires of every item. */
export const GOOGLE_REQUIRED: readonly string[] = ["id", "title", "link", "image_link", "availability", "price"];

/** Google Merchant Center's product feed, variants grouped by `item_group_id`. */
export const google: ImportProfile = feedProfile({
  name: "google",
  attributes: GOOGLE_ATTRIBUTES,
  // Meta reads Google's format too: a header with nothing of Meta's own is Google's.
  detect: (names) => GOOGLE_REQUIRED.every((name) => names.has(name)) && !isMetaHeader(names),
});
