// Meta's catalog feed (CSV, TSV, RSS/Atom XML): the shared feed rules, with Meta's field list and
// its `status`, which takes an archived item off sale.
import { feedName, feedProfile } from "./feed.ts";
import { isMetaHeader, META_ATTRIBUTES } from "./meta-attributes.ts";
import type { ImportProfile } from "./profile.ts";
import { cell } from "./values.ts";

/** Meta's catalog feed, variants grouped by `item_group_id`; an archived item is unavailable. */
export const meta: ImportProfile = feedProfile({
  name: "meta",
  attributes: META_ATTRIBUTES,
  kept: ["status"],
  // Meta's values are `active` and `archived`; any other leaves availability to decide.
  withdrawn: (row, column) => feedName(cell(row, column("status"))) === "archived",
  // Every item has an id and a title: without them a header is not a feed (Shopify's has a Status too).
  detect: (names) => names.has("id") && names.has("title") && isMetaHeader(names),
});
