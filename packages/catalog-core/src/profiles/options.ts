// A document import's reading options checked once, before a byte is read: the profile by name,
// the parameters it needs, and the native CSV's delimiter and unknown columns.
import { invalidOption } from "../errors.ts";
import type { DocumentOptions, StreamFormat } from "../sources.ts";
import { BUILTIN_PROFILES } from "./builtin.ts";
import type { ImportProfile, ProfileParameter, ProfileParameters } from "./profile.ts";

/** How an import reads a document besides its format: a platform's profile and what its file lacks, or the native CSV's dialect. */
export interface DocumentImportOptions extends ProfileParameters {
  /**
   * `"native"` (the default; `"google"` for an XML feed): the catalog's own columns; or a profile by name (`"shopify"`,
   * `"woocommerce"`, `"google"`, `"meta"`, or one given to `createCatalog`), or a profile itself.
   */
  readonly profile?: string | ImportProfile;
  /** The delimiter of a CSV: `,` (the default), `;`, a tab or `|`. */
  readonly delimiter?: string;
  /** `"refuse"` (the default): a column nobody knows is a located problem; `"ignore"`: it is listed in `ignoredColumns`. */
  readonly unknownColumns?: string;
}

const NEEDS: Readonly<Record<ProfileParameter, string>> = {
  shopUrl: "the shop's address, such as https://shop.example, from which each product's url is made",
  currency: "the ISO 4217 code of the feed's prices, such as USD",
  decimal: '"." or ",", the decimal separator of prices',
  variants: '"groups" or "items"',
};

const oneOf = <T extends string>(name: string, value: string | undefined, allowed: readonly T[]): T | undefined => {
  if (value === undefined || allowed.includes(value as T)) return value as T | undefined;
  throw invalidOption(name, `Must be one of ${allowed.map((a) => JSON.stringify(a)).join(", ")}`);
};

function checkShopUrl(value: string): string {
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {}
  if (
    url === undefined ||
    (url.protocol !== "https:" && url.protocol !== "http:") ||
    url.search !== "" ||
    url.hash !== ""
  ) {
    throw invalidOption(
      "shopUrl",
      `Must be the shop's address, such as https://shop.example (was "${value.slice(0, 80)}")`,
    );
  }
  return value;
}

/** A currency given to an import or an export: three letters (ISO 4217), upper-cased; else `VALIDATION_FAILED` naming it. */
export function checkCurrency(value: string): string {
  if (!/^[A-Za-z]{3}$/.test(value)) throw invalidOption("currency", "Must be an ISO 4217 code, such as USD");
  return value.toUpperCase();
}

/** The profiles of a catalog by name: the built-in ones and those given, no name taken twice. */
export function profileBook(given: readonly ImportProfile[]): Map<string, ImportProfile> {
  const book = new Map(BUILTIN_PROFILES.map((profile) => [profile.name, profile]));
  for (const profile of given) {
    if (profile.name === "native" || book.has(profile.name)) {
      throw new TypeError(`A profile named "${profile.name}" exists already`);
    }
    book.set(profile.name, profile);
  }
  return book;
}

/**
 * The reading options of a document import of `format`, checked: an unknown profile, a format
 * the profile does not read, a parameter it needs and lacks, or a bad value is `VALIDATION_FAILED`
 * naming the option.
 */
export function documentOptions(
  format: StreamFormat,
  options: DocumentImportOptions,
  book: ReadonlyMap<string, ImportProfile>,
): DocumentOptions {
  // An XML body is a feed: Merchant Center's format unless the call says Meta's.
  const named = options.profile ?? (format === "xml" ? "google" : "native");
  const profile = typeof named === "string" ? (named === "native" ? "native" : book.get(named)) : named;
  if (profile === undefined) {
    throw invalidOption("profile", `Must be one of ${["native", ...book.keys()].map((n) => `"${n}"`).join(", ")}`);
  }
  const delimiter = oneOf("delimiter", options.delimiter, [",", ";", "\t", "|"] as const);
  const unknownColumns = oneOf("unknownColumns", options.unknownColumns, ["refuse", "ignore"] as const);
  if (delimiter !== undefined && format !== "csv") throw invalidOption("delimiter", "Only a CSV takes a delimiter");
  // Each value given is checked whatever the profile, so that a typo is never silently unused.
  const parameters: { -readonly [K in ProfileParameter]?: ProfileParameters[K] } = {};
  if (options.shopUrl !== undefined) parameters.shopUrl = checkShopUrl(options.shopUrl);
  if (options.currency !== undefined) parameters.currency = checkCurrency(options.currency);
  const decimal = oneOf("decimal", options.decimal, [".", ","] as const);
  if (decimal !== undefined) parameters.decimal = decimal;
  const variants = oneOf("variants", options.variants, ["groups", "items"] as const);
  if (variants !== undefined) parameters.variants = variants;
  if (profile === "native") {
    if (format === "xml") throw invalidOption("profile", 'An XML feed is read by a profile: "google" or "meta"');
    const detect = (header: readonly string[]) => [...book.values()].find((p) => p.detect(header))?.name;
    return {
      ...(options.profile !== undefined ? { profile: "native" as const } : {}),
      ...(delimiter !== undefined ? { delimiter } : {}),
      ...(unknownColumns !== undefined ? { unknownColumns } : {}),
      detect,
    };
  }
  if (format === "ndjson" || !profile.formats.includes(format)) {
    const reads = profile.formats.map((f) => f.toUpperCase()).join(", ");
    throw invalidOption("profile", `The ${profile.name} profile reads ${reads}, not ${format.toUpperCase()}`);
  }
  for (const name of profile.requires ?? []) {
    if (options[name] === undefined)
      throw invalidOption(name, `The ${profile.name} profile needs ${name}: ${NEEDS[name]}`);
  }
  return {
    profile,
    parameters,
    ...(delimiter !== undefined ? { delimiter } : {}),
    ...(unknownColumns !== undefined ? { unknownColumns } : {}),
  };
}

/**
 * How a document is read, for an import's fingerprint: the profile's name, its parameters and the
 * dialect; nothing for one read as every import was before profiles, so its fingerprint is as it was.
 */
export function readingPrint({ profile, parameters, delimiter, unknownColumns }: DocumentOptions): string[] {
  if (profile === undefined && delimiter === undefined && unknownColumns === undefined) return [];
  const name = typeof profile === "object" ? profile.name : (profile ?? "native");
  return [JSON.stringify([name, parameters ?? {}, delimiter ?? ",", unknownColumns ?? "refuse"])];
}
