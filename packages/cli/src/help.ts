// The help of the command and of each of its commands: what `--help` and `help COMMAND` print.
// The README's tables say the same; keep them in step.
import type { Io } from "./io.ts";

/** The commands that have a help of their own, as they are typed. */
export type CommandName = "serve" | "import" | "imports" | "export" | "sites" | "tokens" | "config check";

const CONNECTION = `  --url URL                 the server (default: CATALOG_URL)
  --site TYPE/ID            the site, for example shopify/shop-1 (default: the token's default site)
  --token-file FILE         a file holding the access token (default: CATALOG_TOKEN)`;

const RETRIES = `  --retries N               try again up to N times (default 5) when the connection is refused
                            or lost (after 1, 2, 4... s, at most 16 s) or the server answers 503
                            or 429 (after its Retry-After); a 409 (an earlier try still runs) is waited
                            out, up to 10 minutes, spending no retry`;

/** The overview: `catalog-kit --help`, and what a wrong call prints after its mistake. */
export const USAGE = `Usage: catalog-kit COMMAND [OPTIONS]

Commands:
  serve                 run the server (PORT, HOST, CATALOG_CONFIG, ACCESS_LOG)
  import FILE|-         send a catalog file, or standard input, to a server
  imports [list]|show ID|problems ID
                        a site's import history, one import's record, its problem report
  export [FILE|-]       write a site's catalog to standard output, or to a file
  sites list|create|delete
                        the server's sites, made and deleted at run time (admin scope)
  tokens list|create|revoke
                        the server's tokens, made and revoked at run time (admin scope)
  config check FILE     validate a server configuration, print the settings in effect
  help [COMMAND]        this help, or a command's ("catalog-kit import --help" too)

Options:
  -h, --help            show help
  --version             print the version

Exit codes: 0 done; 1 refused by the server (its problem is printed) or failed;
2 called wrong; 3 no answer from the server (refused, lost), after the retries.
`;

/** Each command's own help. */
export const HELP: Readonly<Record<CommandName, string>> = {
  serve: `Usage: catalog-kit serve

Runs the standalone server until SIGINT or SIGTERM, as npm start does. It takes no options;
the environment configures it: PORT (3000), HOST, CATALOG_CONFIG (a configuration file, see
"catalog-kit config check"), ACCESS_LOG. A configuration without "storage" keeps the
catalog in catalog-kit.db beside it (SQLite). Without a configuration it serves a demo site
on memory storage and prints its token.
`,
  import: `Usage: catalog-kit import FILE|- [OPTIONS]

Sends a catalog to the server. CSV, TSV, NDJSON and XML feeds stream as they are (a .gz file
with Content-Encoding: gzip); JSON (an array of products, or an import body) is sent as one body.
"-" reads standard input. Progress and the outcome go to standard error; standard output is
empty unless --json is given. Every import carries an Idempotency-Key, printed, and sent
again unchanged when the import is tried again.

A platform's file is read by its profile. Without --profile, the header of a CSV or TSV file is
asked of each platform's profile, and an RSS or Atom feed is Google's (standard input is not
looked into: give --profile); the one found is said on standard error, for example:
  catalog-kit: products.csv is a Shopify product CSV: importing with --profile shopify

Options:
${CONNECTION}
  --format FORMAT           csv, tsv, ndjson, json or xml (default: from the name: .csv,
                            .tsv, .ndjson, .jsonl, .json, .xml, .rss, .atom, each maybe .gz);
                            required with -
  --profile NAME            native (the catalog's own columns; no detection), shopify, woocommerce
                            (CSV), google or meta (TSV, CSV or an XML feed)
  --shop-url URL            the shop's address, for each product's page (shopify, woocommerce)
  --currency CODE           the ISO 4217 code of the feed's prices, such as USD (google, meta; default: the site's)
  --decimal .|,             the decimal separator of prices (a profile's; default .)
  --variants groups|items   one product per group of variants (default), or one per variant
  --delimiter CHAR          the delimiter of a CSV: , (default) ; | or tab
  --unknown-columns ignore  a column the file's profile does not know is listed as ignored,
                            instead of refusing the file
  --replace                 the file becomes the site's whole catalog: products not in it are deleted
  --allow-empty             let --replace take an empty file (it empties the site)
  --merge                   change only the fields the file carries of the products it names, by
                            id, else by sku: a CSV of sku,price,available changes prices and stock
  --missing error|skip|create
                            with --merge, a record that names no product: refuses the file
                            (error, the default), is skipped and counted, or is created whole
  --dry-run                 check and count, write nothing
  --json                    print the server's answer, one JSON line, on standard output
  --idempotency-key KEY     the key to send (default: a new random one)
${RETRIES}
  --progress-every SECONDS  a progress line this often when standard error is not a terminal (2)
  -h, --help                show this help
`,
  imports: `Usage: catalog-kit imports [list]|show ID|problems ID [OPTIONS]

A site's import history, newest first (the server keeps the last 1,000 imports of a site, for 30
days, unless configured otherwise); one import's whole record as JSON, its progress while it
runs; or an import's problem report, every refused row with where it is and why (up to the
server's cap, 10,000 by default), to a file or standard output. The token needs the read scope.

Options:
${CONNECTION}
  --state STATE             list: only receiving, committing, succeeded or failed imports
  --idempotency-key KEY     list: only the import sent with this key (an import whose answer was lost)
  --limit N                 list: how many (default 20, at most 1,000)
  -o, --output FILE         problems: the file to write (default: standard output)
  --format csv|ndjson       problems: the report's format (default csv)
  --json                    list, show: JSON on standard output, one line
  -h, --help                show this help
`,
  export: `Usage: catalog-kit export [FILE|-] [OPTIONS]

Writes every product of the site, in a format import takes, to standard output ("-", the
default) or to FILE; with --profile, Google Merchant Center's or Meta's TSV feed instead. A
reader that stops early (| head) ends it quietly, with exit code 0.

Options:
${CONNECTION}
  --format csv|ndjson|json  the format (default: from FILE's name, else csv); json is one array
  --profile google|meta     write the platform's product feed (TSV)
  --currency CODE           the ISO 4217 code of the feed's prices (default: the site's configured one)
${RETRIES}
  -h, --help                show this help
`,
  sites: `Usage: catalog-kit sites list|create TYPE/ID|delete TYPE/ID [OPTIONS]

Lists, makes or deletes the server's sites through its admin API: the token needs the admin
scope. A site of the configuration file is listed (source file) and never deleted here. A
change is in force on every server sharing the storage within a second.

Options:
  --url URL                 the server (default: CATALOG_URL)
  --token-file FILE         a file holding the access token (default: CATALOG_TOKEN)
  --delete-products         delete: the site's products go with it (without it, a site that
                            holds products is refused)
  --json                    print the server's answer as JSON on standard output
  -h, --help                show this help
`,
  tokens: `Usage: catalog-kit tokens list|create|revoke ID [OPTIONS]

Lists, makes or revokes the server's tokens through its admin API: the token needs the admin
scope. A list never shows a secret. create prints the new token's secret on standard output,
alone (catalog-kit tokens create ... > token-file), this once: the server keeps only its
SHA-256. Rotation: create the new token, move the clients, revoke the old one (a token cannot
revoke itself). A revoked token is refused everywhere within a second.

Options:
  --url URL                 the server (default: CATALOG_URL)
  --token-file FILE         a file holding the access token (default: CATALOG_TOKEN)
  --name NAME               create: what lists and the audit trail call it
  --sites TYPE/ID,...|*     create: its sites, or "*" for every site
  --scopes LIST             create: read, import, delete, admin, comma-separated
  --expires-at TIME         create: when it stops working, ISO 8601 (2030-01-31T00:00:00Z)
  --requests-per-minute N   create: its own rate limits
  --import-bytes-per-minute N
  --imports-per-site N
  --json                    print the server's answer as JSON on standard output (create: the
                            whole answer, its secret as "token")
  -h, --help                show this help
`,
  "config check": `Usage: catalog-kit config check FILE

Validates a server configuration with the server's own loader: prints the settings in effect,
defaults included, tokens and passwords redacted, on standard output, and exits 0; or names the
bad key on standard error and exits 1.

Options:
  -h, --help                show this help
`,
};

/** Writes a command's help, or the overview, to standard output; the exit code of a help. */
export function printHelp(io: Io, command?: CommandName): number {
  io.stdout.write(command === undefined ? USAGE : HELP[command]);
  return 0;
}
