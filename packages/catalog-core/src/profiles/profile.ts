// What an import profile is: how a platform's own file (a Shopify or WooCommerce product CSV, a
// Merchant Center or Meta feed) becomes the catalog's product records. A profile reads rows that
// are already decoded (CSV, TSV or XML items), groups them, and hands records to the one engine,
// which validates them and applies every import rule as for any other import.
import type { Place, Problems } from "../parse.ts";
import type { Product } from "../product.ts";

/** The body formats a profile may read: a CSV, a TSV (no quoting), or an XML feed of items. */
export type ProfileFormat = "csv" | "tsv" | "xml";

/** A row of a platform's file: its cells by column name, and where it starts. */
export interface ProfileRow {
  /** The line the row starts on (CSV, TSV; header = 1) or the item's number (XML, from 1). */
  readonly position: number;
  /** Cells by column name; an XML element given more than once (`additional_image_link`) is a list. */
  readonly cells: Readonly<Record<string, string | readonly string[]>>;
}

/** What a file lacks that a profile may need, given with the import. */
export interface ProfileParameters {
  /** The shop's address: Shopify and WooCommerce products get their `url` from it. */
  readonly shopUrl?: string;
  /** The currency of the feed's prices (ISO 4217): a price in another one is a located problem. */
  readonly currency?: string;
  /** The decimal separator of prices: `.` (the default) or `,`. */
  readonly decimal?: "." | ",";
  /** `"groups"` (the default): the rows of one group make one product; `"items"`: one product a variant. */
  readonly variants?: "groups" | "items";
}

/** The name of a parameter of `ProfileParameters`. */
export type ProfileParameter = keyof ProfileParameters;

/** How a profile's call reads: its parameters, where its problems go, and how to locate them. */
export interface ProfileContext {
  /** The format of the file: an XML item gives a repeated element as a list, a CSV or TSV one cell. */
  readonly format: ProfileFormat;
  readonly parameters: ProfileParameters;
  /** The instant a sale's dates are compared with: when the import began, one for all its rows. */
  readonly now: number;
  /** Problems of values the profile finds itself (a price it cannot read): each makes the import fail. */
  readonly problems: Problems;
  /** The place of a column (an element) of a row, for a problem. */
  place(row: ProfileRow, column: string): Place;
}

/** How a row joins others: rows of one `key` make one product. */
export interface RowGroup {
  /** The group's name; rows of one key that follow one another are one group. */
  readonly key: string;
  /** Another name rows may give the group (a WooCommerce parent's SKU besides its `id:N`). */
  readonly alias?: string;
  /**
   * Kept open to the end of the file, for rows of its key that come later (a WooCommerce variable
   * product, whose variations the platform writes anywhere): its product is made at the end.
   */
  readonly open?: boolean;
}

/** A product record a profile made, and the position its problems are located at. */
export interface ProfileRecord {
  readonly position: number;
  /** A product as imported: the engine checks it against the product schema. */
  readonly record: Record<string, unknown>;
}

/**
 * A platform's file format, as the import engine reads it. `columns` says which columns it knows;
 * `group` tells which rows make one product; `products` makes the records of a group's rows.
 * Problems of values go to `context.problems` at their row and column; the product schema checks
 * the records afterwards, its problems located at the record's position and `columnOf` its field.
 */
export interface ImportProfile {
  /** The name the `profile` option gives (`"shopify"`). */
  readonly name: string;
  /** The formats its files come in. */
  readonly formats: readonly ProfileFormat[];
  /** Parameters a call must give (`shopUrl`): refused before a byte is read otherwise. */
  readonly requires?: readonly ProfileParameter[];
  /**
   * How a column (an XML element) of the file is treated: `"kept"` (read into products),
   * `"ignored"` (the platform's, not kept: listed in `ignoredColumns`), `undefined` (unknown: a
   * located problem).
   */
  column(name: string): "kept" | "ignored" | undefined;
  /** Whether a header is this platform's, to name the profile a file needs. */
  detect(header: readonly string[]): boolean;
  /** The column a product field is read from, given the file's header: where its problems are. */
  columnOf(field: keyof Product, header: readonly string[]): string;
  /** The group of a row. */
  group(row: ProfileRow, context: ProfileContext): RowGroup;
  /** The records of one group's rows, in the file's order (one, or one a variant). */
  products(rows: readonly ProfileRow[], context: ProfileContext): ProfileRecord[];
}

/** The context of one call: its parameters, where its problems go, and places by the file's format. */
export function profileContext(
  format: ProfileFormat,
  parameters: ProfileParameters,
  problems: Problems,
  now = Date.now(),
): ProfileContext {
  return {
    format,
    now,
    parameters,
    problems,
    place:
      format === "xml"
        ? (row, column) => ({ item: row.position, element: column })
        : (row, column) => ({ row: row.position, column }),
  };
}
