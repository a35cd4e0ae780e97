// The platform-file cases of the streamed-import scenario: a Shopify product CSV and a Google RSS
// feed, generated while sent through the import profiles, each set beside the native CSV case of
// the same run by rows a second: a platform's row (a variant, an image, a feed item) is smaller
// than a native row, and several make one product, so the import of its rows is what compares.
import { post } from "../body.ts";
import type { NamedBaseline, Row } from "../report.ts";
import { type Rig, SERVER, type Storage } from "../rig.ts";
import { type Measured, measure, rate } from "./cases.ts";
import { GOOGLE_RSS_FILE } from "./google-rss-file.ts";
import { nothingProduced, type PlatformFile, platformBody } from "./platform-body.ts";
import { describe, nameOf, sizeLabel } from "./rows.ts";
import { API, budget, type CaseName, fixed, megabytes, TOKEN, takeSite } from "./setup.ts";
import { SHOPIFY_FILE } from "./shopify-file.ts";

/** The cases that send a platform's file, and the file each sends. */
export const PLATFORM_FILES = { shopify: SHOPIFY_FILE, "google-rss": GOOGLE_RSS_FILE } as const;

/** A case that sends a platform's file. */
export type PlatformCase = keyof typeof PLATFORM_FILES;

/** Whether a case sends a platform's file. */
export const isPlatform = (name: CaseName): name is PlatformCase => name in PLATFORM_FILES;

/** A case's rows (a platform's records; a native CSV's products) a second. */
export const rowRate = (m: Measured) => (m.rows ?? m.products) / m.seconds;

/** One platform file, streamed into a fresh site of the rig's server through its profile. */
export async function platformCase(rigged: Rig, file: PlatformFile): Promise<Measured> {
  const site = takeSite();
  const produced = nothingProduced();
  const query = new URLSearchParams({ siteId: site.siteId, siteType: site.siteType, ...file.query });
  const measured = await measure(
    rigged,
    () => budget,
    () => produced.bytes,
    () =>
      post(
        rigged.server,
        TOKEN,
        `${API}/bulk?${query}`,
        file.contentType,
        platformBody(file, produced, { maxBytes: budget }),
      ),
  );
  return { ...measured, products: produced.products, rows: produced.rows, bytes: produced.bytes };
}

const NATIVE: NamedBaseline = {
  label: "native CSV",
  name: "the streamed native CSV import of the same run (one row a product), fresh server",
};

/**
 * A platform case's rows beside the native CSV's: rows a second (to be at least 0.8x), products a
 * second, the server's peak RSS and, on memory storage, its peak above the heap that holds the
 * stored products (to be at most 300 MB).
 */
export function platformRows(storage: Storage, name: PlatformCase, m: Measured, csv: Measured): Row[] {
  const file = PLATFORM_FILES[name];
  const rows = m.rows ?? m.products;
  const subject = `streamed ${file.label} import (profile=${file.query.profile}, ${fixed(rows / m.products, 2)} records a product) over HTTP, ${storage}, ${sizeLabel(m)}, ${rows.toLocaleString("en-US")} records in one chunked request, ${SERVER}`;
  const short = nameOf(storage, name);
  const note = `${fixed(rate(m), 0)} products/s, ${describe(m)}; native CSV: ${fixed(rate(csv), 0)} products/s, ${describe(csv)}`;
  const result: Row[] = [
    {
      name: short,
      scenario: subject,
      figure: rowRate(m),
      unit: "rows/s",
      baseline: { ...NATIVE, figure: rowRate(csv), unit: "rows/s" },
      ratio: rowRate(m) / rowRate(csv),
      target: { label: ">= 0.8x", minRatio: 0.8 },
      note,
    },
    {
      name: `products/s, ${short}`,
      scenario: `catalog products a second, ${subject}`,
      figure: rate(m),
      unit: "products/s",
      baseline: { ...NATIVE, figure: rate(csv), unit: "products/s" },
      ratio: rate(m) / rate(csv),
      note: `${fixed(megabytes(m.bytes) / m.seconds)} MB/s against ${fixed(megabytes(csv.bytes) / csv.seconds)} MB/s`,
    },
  ];
  if (m.peakRss !== undefined && csv.peakRss !== undefined) {
    result.push({
      name: `peak RSS, ${short}`,
      scenario: `server peak RSS (VmHWM), ${subject}`,
      figure: megabytes(m.peakRss),
      unit: "MB",
      baseline: { ...NATIVE, figure: megabytes(csv.peakRss), unit: "MB" },
      ratio: m.peakRss / csv.peakRss,
      ...(storage !== "memory" ? { target: { label: "<= 300 MB", max: 300 } } : {}),
      note: `fresh server for each; idle ${fixed(megabytes(m.idleRss), 0)} MB, ${m.halfRss === undefined ? "n/a" : fixed(megabytes(m.halfRss), 0)} MB at half the body`,
    });
  }
  if (m.peakRss !== undefined && m.heapAfter !== undefined) {
    // Into memory the server keeps the products: what it may take beyond them is 300 MB.
    result.push({
      name: `RSS above heap, ${short}`,
      scenario: `server peak RSS above the heap in use once it answered (the stored products, and garbage not yet collected), ${subject}`,
      figure: megabytes(m.peakRss - m.heapAfter),
      unit: "MB",
      target: { label: "<= 300 MB", max: 300 },
      note: `peak RSS ${fixed(megabytes(m.peakRss), 0)} MB, heap in use afterwards ${fixed(megabytes(m.heapAfter), 0)} MB (${fixed(m.heapAfter / m.products, 0)} B a product)`,
    });
  }
  return result;
}
