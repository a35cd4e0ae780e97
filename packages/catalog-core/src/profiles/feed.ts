// What Google Merchant Center and Meta catalog feeds share: the same item attributes (Meta reads
// Google's feed format), the same grouping of variants by `item_group_id`, the same prices with
// their currency and sale dates. google.ts and meta.ts give each platform's attribute list.
import type { Product } from "../product.ts";
import { readInterval } from "./interval.ts";
import type {
  ImportProfile,
  ProfileContext,
  ProfileFormat,
  ProfileParameter,
  ProfileRecord,
  ProfileRow,
} from "./profile.ts";
import {
  cell,
  cellList,
  type GroupParts,
  groupProduct,
  readAvailability,
  readMoney,
  sellingPrice,
  type Variant,
} from "./values.ts";

/** The formats both platforms take: a TSV (Google's text feed), a CSV (Meta's), an RSS or Atom XML feed. */
export const FEED_FORMATS: readonly ProfileFormat[] = ["tsv", "csv", "xml"];

/** A feed's prices carry no currency the catalog can trust alone: the call names the one it expects. */
export const FEED_REQUIRES: readonly ProfileParameter[] = ["currency"];

/** The attributes both profiles read into products (Atom's `summary` is the description). */
export const FEED_KEPT: readonly string[] = [
  "id",
  "item_group_id",
  "title",
  "description",
  "summary",
  "link",
  "image_link",
  "additional_image_link",
  "availability",
  "price",
  "sale_price",
  "sale_price_effective_date",
];

// Elements of an RSS `<item>` or an Atom `<entry>` that are the feed format's own, not an attribute.
const FEED_ELEMENTS = [
  "guid",
  "pubdate",
  "author",
  "category",
  "comments",
  "enclosure",
  "source",
  "updated",
  "published",
  "content",
  "contributor",
  "rights",
];

/** What makes a platform's feed profile: its name, its attributes, and what only it reads. */
export interface FeedPlatform {
  readonly name: string;
  /** Every attribute the platform publishes, in lower case; kept ones included. */
  readonly attributes: ReadonlySet<string>;
  /** Attributes this platform alone reads, besides `FEED_KEPT` (Meta's `status`). */
  readonly kept?: readonly string[];
  /** Whether an item is off sale whatever its availability says (Meta's archived items). */
  readonly withdrawn?: (row: ProfileRow, column: (name: string) => string) => boolean;
  /** Whether a header (names in lower case) is this platform's. */
  readonly detect: (names: ReadonlySet<string>) => boolean;
}

/**
 * A header name as both platforms compare it: trimmed, in lower case. Their specifications write
 * every attribute in lower case and give no meaning to case; spreadsheets capitalise headers.
 */
export function feedName(name: string): string {
  return name.trim().toLowerCase();
}

// The attribute a column belongs to: Google's `shipping(country:price)` gives sub-attributes in
// parentheses, Meta's flattened `video[0].url` or `applink.ios_url` in JSON-path syntax.
function attributeOf(name: string): string {
  return name.replace(/[[(.].*$/s, "");
}

// Keys met that are spelled as `feedName` spells them (most are): such a key is another
// attribute's spelling only by being it, so an absent attribute skips them without a comparison.
// Bounded: a feed of endless odd names only goes back to comparing them.
const plainKeys = new Set<string>();
const MAX_PLAIN_KEYS = 1024;

// The row's own spelling of an attribute, which its cells are keyed by and problems must name.
function columnIn(row: ProfileRow, name: string): string {
  if (Object.hasOwn(row.cells, name)) return name;
  for (const key of Object.keys(row.cells)) {
    if (plainKeys.has(key)) continue;
    const normal = feedName(key);
    if (normal === name) return key;
    if (normal === key && plainKeys.size < MAX_PLAIN_KEYS) plainKeys.add(key);
  }
  return name;
}

// The header's own spelling of an attribute, for `columnOf`.
function columnInHeader(header: readonly string[], name: string): string | undefined {
  return header.find((column) => feedName(column) === name);
}

/** The profile of a platform's product feed, its attribute list given by `platform`. */
export function feedProfile(platform: FeedPlatform): ImportProfile {
  const kept = new Set([...FEED_KEPT, ...(platform.kept ?? [])]);
  const value = (row: ProfileRow, name: string) => cell(row, columnIn(row, name));
  const groupId = (row: ProfileRow) => {
    const group = value(row, "item_group_id");
    return group.trim() === "" ? value(row, "id") : group;
  };

  const images = (row: ProfileRow, context: ProfileContext): string[] => {
    const main = cellList(row, columnIn(row, "image_link"));
    const more = cellList(row, columnIn(row, "additional_image_link"));
    // Writers put ", " between URLs: a URL never starts or ends with white space.
    // An XML feed repeats `additional_image_link`; a text feed writes the URLs in one cell,
    // separated by commas (a comma inside a URL is written %2C).
    const split = context.format === "xml" ? more : more.flatMap((text) => text.split(",").map((url) => url.trim()));
    return [...main, ...split];
  };

  const price = (row: ProfileRow, context: ProfileContext): number | undefined => {
    const regular = readMoney(row, columnIn(row, "price"), context);
    const saleColumn = columnIn(row, "sale_price");
    if (cell(row, saleColumn).trim() === "") return regular;
    // Read even when out of its dates: a wrong currency is a mistake whenever the sale runs.
    const sale = readMoney(row, saleColumn, context);
    const datesColumn = columnIn(row, "sale_price_effective_date");
    if (cell(row, datesColumn).trim() === "") return sale;
    const dates = readInterval(row, datesColumn, context);
    return dates === undefined ? regular : sellingPrice(regular, sale, dates, context.now);
  };

  const variant = (row: ProfileRow, context: ProfileContext): Variant => {
    const availability = readAvailability(row, columnIn(row, "availability"), context);
    const withdrawn = platform.withdrawn?.(row, (name) => columnIn(row, name)) ?? false;
    const amount = price(row, context);
    const sku = value(row, "id");
    const available = (availability ?? false) && !withdrawn;
    return amount === undefined ? { sku, available } : { sku, price: amount, available };
  };

  const parts = (id: string, rows: readonly ProfileRow[], context: ProfileContext): GroupParts => {
    const first = rows[0] as ProfileRow;
    const description = value(first, "description");
    return {
      id,
      title: value(first, "title"),
      description: description === "" ? value(first, "summary") : description,
      url: value(first, "link"),
      images: rows.flatMap((row) => images(row, context)),
      variants: rows.map((row) => variant(row, context)),
    };
  };

  return {
    name: platform.name,
    formats: FEED_FORMATS,
    requires: FEED_REQUIRES,
    column(name) {
      const normal = feedName(name);
      if (kept.has(normal)) return "kept";
      const attribute = attributeOf(normal);
      return platform.attributes.has(attribute) || FEED_ELEMENTS.includes(attribute) ? "ignored" : undefined;
    },
    detect(header) {
      return platform.detect(new Set(header.map(feedName)));
    },
    columnOf(field, header) {
      const name = FIELD_COLUMNS[field](header);
      return columnInHeader(header, name) ?? name;
    },
    group(row, context) {
      return { key: context.parameters.variants === "items" ? value(row, "id") : groupId(row) };
    },
    products(rows, context): ProfileRecord[] {
      if (context.parameters.variants === "items") {
        return rows.map((row) => ({
          position: row.position,
          record: groupProduct(parts(value(row, "id"), [row], context)),
        }));
      }
      const first = rows[0] as ProfileRow;
      return [{ position: first.position, record: groupProduct(parts(groupId(first), rows, context)) }];
    },
  };
}

// The column each product field is read from. A product's id is its group's when the feed has
// groups; price_min and price_max come from the variants' prices.
const FIELD_COLUMNS: Record<keyof Product, (header: readonly string[]) => string> = {
  id: (header) => (columnInHeader(header, "item_group_id") === undefined ? "id" : "item_group_id"),
  sku: () => "id",
  title: () => "title",
  description: (header) =>
    columnInHeader(header, "description") === undefined && columnInHeader(header, "summary") !== undefined
      ? "summary"
      : "description",
  price: () => "price",
  price_min: () => "price",
  price_max: () => "price",
  available: () => "availability",
  images: () => "image_link",
  featured_image: () => "image_link",
  url: () => "link",
};
