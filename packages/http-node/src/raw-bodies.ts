// The media types of the route table's raw bodies and exports, each with the stream format it is
// read or written as, and the example /openapi.json gives of it.
import type { RawBody } from "./operation.ts";

const TSV_TYPE = "text/tab-separated-values";
// A platform's feed comes as XML under any of the names feeds are served with.
const XML_TYPES = {
  "application/xml": "xml",
  "text/xml": "xml",
  "application/rss+xml": "xml",
  "application/atom+xml": "xml",
} as const;
/** The raw bodies of `POST .../bulk`: NDJSON, or a document (CSV, TSV, an XML feed). */
export const BULK_BODY: RawBody = {
  types: {
    "application/x-ndjson": "ndjson",
    "application/jsonl": "ndjson",
    "text/csv": "csv",
    [TSV_TYPE]: "tsv",
    ...XML_TYPES,
  },
  what: "NDJSON (one Product Object per line, blank lines skipped), or a document read by the profile query parameter: a CSV, a TSV, or an RSS 2.0 or Atom feed",
  examples: { csv: "shopifyCsv", tsv: "googleTsv", xml: "rss" },
  typeExamples: { "application/atom+xml": "atom" },
};
/** The raw bodies of `POST .../bulk/csv`: a CSV or TSV document. */
export const CSV_BODY: RawBody = {
  types: { "text/csv": "csv", [TSV_TYPE]: "tsv" },
  what: "the CSV (or TSV) document itself, by the same rules as csvContent, read by the profile query parameter",
  examples: { csv: "nativeCsv", tsv: "googleTsv" },
};
/** The import files a list or export answers, by Accept. */
export const EXPORT_TYPES = {
  "text/csv": "csv",
  "application/x-ndjson": "ndjson",
  "application/jsonl": "ndjson",
} as const;
/** The export's answers: the import files, and the feeds its profile parameter chooses (Accept may name their type). */
export const FEED_TYPES = { ...EXPORT_TYPES, [TSV_TYPE]: "tsv" } as const;
