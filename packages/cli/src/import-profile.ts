// Which profile an import reads its file with, and the query parameters that say so: --profile
// and what it takes, or, without it, the profile whose own `detect` knows the file's header (an
// RSS or Atom feed: Google's). Which header is which platform's is catalog-core's to say, never
// this file's. Everything a profile lacks is a usage error before a byte is sent.
import { BUILTIN_PROFILES, type ImportProfile, type ProfileParameter } from "@catalog-kit/catalog-core";
import type { FileKind } from "./file-format.ts";
import { headerNames, readHead, rootElement } from "./file-head.ts";
import { UsageError } from "./options.ts";

/** The options of `import` that choose and feed a profile, as `parseArgs` declares them. */
export const PROFILE_OPTIONS = {
  profile: { type: "string" },
  "shop-url": { type: "string" },
  currency: { type: "string" },
  decimal: { type: "string" },
  variants: { type: "string" },
  delimiter: { type: "string" },
  "unknown-columns": { type: "string" },
} as const;

/** The values of `PROFILE_OPTIONS` as `parseArgs` gives them. */
export type ProfileValues = { readonly [K in keyof typeof PROFILE_OPTIONS]?: string | undefined };

// Each parameter a profile may require, by the flag that gives it and what it is.
const FLAGS: Readonly<Record<ProfileParameter, { flag: keyof ProfileValues; what: string }>> = {
  shopUrl: { flag: "shop-url", what: "URL, the shop's address, such as https://shop.example" },
  currency: { flag: "currency", what: "CODE, the ISO 4217 code of the prices, such as USD" },
  decimal: { flag: "decimal", what: '"." or ",", the decimal separator of prices' },
  variants: { flag: "variants", what: "groups or items" },
};

// What a detected file is called in the line that says so.
const KINDS: Readonly<Record<string, string>> = {
  shopify: "a Shopify product CSV",
  woocommerce: "a WooCommerce product CSV",
  google: "a Google Merchant Center feed",
  meta: "a Meta catalog feed",
};

// The root elements of the XML feeds the profiles read.
const FEEDS: Readonly<Record<string, string>> = { rss: "an RSS feed", feed: "an Atom feed" };

const DELIMITERS: Readonly<Record<string, string>> = { ",": ",", ";": ";", "|": "|", tab: "\t", "\t": "\t" };

function oneOf(flag: string, value: string | undefined, allowed: readonly string[]): string | undefined {
  if (value === undefined || allowed.includes(value)) return value;
  throw new UsageError(`--${flag} must be ${allowed.join(" or ")}, not ${JSON.stringify(value)}`);
}

function profileNamed(name: string): ImportProfile | undefined {
  if (name === "native") return undefined;
  const profile = BUILTIN_PROFILES.find((p) => p.name === name);
  if (profile !== undefined) return profile;
  const names = ["native", ...BUILTIN_PROFILES.map((p) => p.name)].join(", ");
  throw new UsageError(`--profile must be one of ${names}, not ${JSON.stringify(name)}`);
}

/** The built-in profile whose `detect` knows the header of a CSV or TSV `file`; undefined when none does. */
export async function detectProfile(
  file: string,
  kind: FileKind,
  delimiter: string | undefined,
): Promise<ImportProfile | undefined> {
  const separator = delimiter ?? (kind.format === "tsv" ? "\t" : ",");
  const quoted = kind.format === "csv";
  const head = await readHead(file, kind.gzip, (text) => headerNames(text, separator, quoted) !== undefined);
  const header = headerNames(head.text, separator, quoted, head.ended);
  if (header === undefined) return undefined;
  return BUILTIN_PROFILES.find((profile) => profile.formats.includes(kind.format as "csv") && profile.detect(header));
}

/** What an XML `file`'s root says it is (`an RSS feed`), when it is a feed a profile reads. */
export async function sniffFeed(file: string, kind: FileKind): Promise<string | undefined> {
  const head = await readHead(file, kind.gzip, (text) => rootElement(text) !== undefined);
  const root = rootElement(head.text);
  return root === undefined ? undefined : FEEDS[root];
}

/**
 * The query parameters that import `file` of `kind` with its profile: `--profile` as given, else
 * the one detected (said on standard error through `say`). Usage errors for a profile that does
 * not read the format, lacks a parameter, or flags that only a profile takes.
 */
export async function profileQuery(
  file: string,
  kind: FileKind,
  values: ProfileValues,
  say: (line: string) => void,
): Promise<Record<string, string>> {
  const decimal = oneOf("decimal", values.decimal, [".", ","]);
  const variants = oneOf("variants", values.variants, ["groups", "items"]);
  const unknownColumns = oneOf("unknown-columns", values["unknown-columns"], ["ignore", "refuse"]);
  const delimiter = values.delimiter === undefined ? undefined : DELIMITERS[values.delimiter];
  if (values.delimiter !== undefined && delimiter === undefined) {
    throw new UsageError(`--delimiter must be , ; | or tab, not ${JSON.stringify(values.delimiter)}`);
  }
  const sniffable = file !== "-";
  let profile = values.profile === undefined ? undefined : profileNamed(values.profile);
  if (values.profile === undefined && sniffable && (kind.format === "csv" || kind.format === "tsv")) {
    profile = await detectProfile(file, kind, delimiter);
    if (profile !== undefined) {
      say(`${file} is ${KINDS[profile.name] ?? `a ${profile.name} file`}: importing with --profile ${profile.name}`);
    }
  }
  if (values.profile === undefined && kind.format === "xml") {
    const feed = sniffable ? await sniffFeed(file, kind) : undefined;
    if (feed === undefined) {
      const why = sniffable ? `${file} is no RSS or Atom feed` : "standard input is not looked into";
      throw new UsageError(`An XML file is read by a profile, and ${why}: give --profile google or --profile meta`);
    }
    profile = profileNamed("google");
    say(`${file} is ${feed}: importing with --profile google (a Meta feed: give --profile meta)`);
  }

  const query: Record<string, string> = {};
  if (profile === undefined) {
    if (kind.format === "xml") throw new UsageError("An XML feed is read by a profile: --profile google or meta");
    const only = (["shop-url", "currency", "decimal", "variants"] as const).find((flag) => values[flag] !== undefined);
    if (only !== undefined) {
      throw new UsageError(
        `--${only} is for a platform's file, read by a profile; ${values.profile === "native" ? "--profile native takes none" : "none was detected: give --profile"}`,
      );
    }
    if (values.profile !== undefined) query.profile = "native";
  } else {
    if (!profile.formats.includes(kind.format as "csv")) {
      const reads = profile.formats.join(", ");
      throw new UsageError(`The ${profile.name} profile reads ${reads}, not ${kind.format}`);
    }
    for (const parameter of profile.requires ?? []) {
      const { flag, what } = FLAGS[parameter];
      if (values[flag] === undefined) {
        throw new UsageError(`The ${profile.name} profile needs --${flag} ${what}`);
      }
    }
    query.profile = profile.name;
    if (values["shop-url"] !== undefined) query.shopUrl = values["shop-url"];
    if (values.currency !== undefined) query.currency = values.currency;
    if (decimal !== undefined) query.decimal = decimal;
    if (variants !== undefined) query.variants = variants;
  }
  if (delimiter !== undefined) query.delimiter = delimiter;
  if (unknownColumns !== undefined) query.unknownColumns = unknownColumns;
  return query;
}
