// The standalone server's configuration file (CATALOG_CONFIG): its schema, defaults, and errors
// that name the key. Defaults and shapes come from the packages that own them (http-node's limits;
// the storage's options from its adapter module, see storage/load.ts), so that the file cannot
// drift from them.
import { readFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import {
  DEFAULT_MAX_PRODUCTS,
  DEFAULT_MAX_STREAM_PRODUCTS,
  IDEMPOTENCY_DEFAULTS,
  RateLimitsSchema,
  ScopesSchema,
  type Site,
  SiteSchema,
  siteKey,
} from "@catalog-kit/catalog-core";
import {
  DEFAULT_BODY_BUDGET_FACTOR,
  DEFAULT_BODY_IDLE_TIMEOUT_MS,
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_MAX_CONCURRENT_IMPORTS,
  DEFAULT_MAX_STREAM_BYTES,
  DEFAULT_MAX_UPLOADS_PER_TOKEN,
  HEX_SHA256,
  hasOneSecret,
  isTokenSite,
} from "@catalog-kit/http-node";
import * as v from "valibot";
import { ConfigError, issueLine, valibotMessage } from "./config-error.ts";
import { HISTORY_CONFIG_ENTRIES, historyIssues } from "./history-config.ts";
import { jsonErrorOffset, placeOf } from "./json-position.ts";
import { BUNDLED_ADAPTERS, type CheckedStorage, checkStorage, type StorageConfig } from "./storage/load.ts";
import { WEBHOOK_CONFIG_ENTRIES, webhookIssues } from "./webhooks/webhook-config.ts";

export { ConfigError } from "./config-error.ts";
export type { StorageConfig } from "./storage/load.ts";

/** Default of the config's `limits.requestTimeoutMs`: 10 minutes to send a whole request. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 600_000;

const Count = v.pipe(
  v.number("Must be a number"),
  v.safeInteger("Must be an integer"),
  v.minValue(1, "Must be at least 1"),
);
const Secret = v.pipe(v.string("Must be a string"), v.minLength(1, "Must not be empty"));

const TokenSchema = v.pipe(
  v.strictObject({
    token: v.optional(Secret),
    tokenSha256: v.optional(
      v.pipe(
        v.string("Must be a string"),
        v.regex(HEX_SHA256, "Must be the SHA-256 of the token: 64 hexadecimal digits"),
      ),
    ),
    sites: v.union(
      [v.literal("*"), v.pipe(v.array(SiteSchema), v.minLength(1, "Must list at least one site"))],
      'Must be "*" or a list of sites',
    ),
    defaultSite: v.optional(SiteSchema),
    // What the audit trail and the admin API call it (default `tokens[<index>]`), and what it may do
    // (default: every scope but admin, as before scopes existed).
    name: v.optional(v.pipe(v.string("Must be a string"), v.minLength(1, "Must not be empty"), v.maxLength(200))),
    scopes: v.optional(ScopesSchema),
    rateLimits: v.optional(RateLimitsSchema),
  }),
  v.check((token) => hasOneSecret(token), "Give exactly one of token and tokenSha256"),
);

// Only the adapter's name here: its options are its module's to validate (checkStorage), once
// loadConfig has loaded it.
const StorageSchema = v.looseObject(
  { adapter: v.pipe(v.string("Must be a string"), v.minLength(1, "Must not be empty")) },
  `Must be { "adapter": "<name>", ... }: ${BUNDLED_ADAPTERS.join(", ")}, a package or a path`,
);

// A configured site: its names, and the currency of its prices, which a feed export writes.
const ConfigSiteSchema = v.strictObject({
  ...SiteSchema.entries,
  currency: v.optional(
    v.pipe(
      v.string("Must be a string"),
      v.regex(/^[A-Z]{3}$/, "Must be an ISO 4217 currency code: three capital letters, such as USD"),
    ),
  ),
});

/** The storage of a configuration that names none: a SQLite file beside it, kept across restarts. */
export const DEFAULT_STORAGE: StorageConfig = { adapter: "sqlite" };

/**
 * The schema of the server's configuration file (`CATALOG_CONFIG`); unknown keys are errors. Of
 * `storage` it checks the adapter's name only: the options are the adapter module's to validate.
 */
export const ConfigSchema = v.strictObject({
  sites: v.pipe(v.array(ConfigSiteSchema), v.minLength(1, "Must list at least one site")),
  tokens: v.pipe(v.array(TokenSchema), v.minLength(1, "Must list at least one token")),
  storage: v.optional(StorageSchema, DEFAULT_STORAGE),
  limits: v.optional(
    v.strictObject({
      maxBodyBytes: v.optional(Count, DEFAULT_MAX_BODY_BYTES),
      maxProductsPerRequest: v.optional(Count, DEFAULT_MAX_PRODUCTS),
      maxStreamBytes: v.optional(Count, DEFAULT_MAX_STREAM_BYTES),
      maxProductsPerStream: v.optional(Count, DEFAULT_MAX_STREAM_PRODUCTS),
      // A streamed import of a gigabyte takes minutes over a modest link; slow senders are cut
      // by bodyIdleTimeoutMs and held to their own token's uploads meanwhile.
      requestTimeoutMs: v.optional(Count, DEFAULT_REQUEST_TIMEOUT_MS),
      maxConcurrentImports: v.optional(Count, DEFAULT_MAX_CONCURRENT_IMPORTS),
      maxUploadsPerToken: v.optional(Count, DEFAULT_MAX_UPLOADS_PER_TOKEN),
      // Its default follows maxBodyBytes: parseConfig fills it in, so that it is shown with the others.
      bodyBytesInFlight: v.optional(Count),
      bodyIdleTimeoutMs: v.optional(Count, DEFAULT_BODY_IDLE_TIMEOUT_MS),
    }),
    {},
  ),
  idempotency: v.optional(v.strictObject({ retentionMs: v.optional(Count, IDEMPOTENCY_DEFAULTS.retentionMs) }), {}),
  // The quotas of a token without its own; absent: none (a token's own still apply).
  rateLimits: v.optional(RateLimitsSchema),
  notFoundStatus: v.optional(v.picklist([400, 404], "Must be 400 or 404"), 400),
  accessLog: v.optional(v.boolean("Must be true or false"), true),
  // `true`: GET /metrics on the server's own address; an address: there instead; `false`: none.
  metrics: v.optional(
    v.union(
      [
        v.boolean(),
        v.strictObject({
          port: v.pipe(Count, v.maxValue(65_535, "Must be a port number")),
          host: v.optional(v.pipe(v.string("Must be a string"), v.minLength(1, "Must not be empty")), "127.0.0.1"),
        }),
      ],
      'Must be true, false, or { "port": number, "host"?: string }',
    ),
    true,
  ),
  // What each site's import history keeps, or `false` for none.
  ...HISTORY_CONFIG_ENTRIES,
  // Signed webhooks at each import's end: the endpoints, their targets, the delivery's timing.
  ...WEBHOOK_CONFIG_ENTRIES,
});

/**
 * A validated server configuration, defaults applied. Its `storage` is the adapter's name and its
 * options: validated, the adapter's defaults applied, when `loadConfig` gave it; as written when
 * `parseConfig` did (`openStore` validates them then).
 */
export type ServerConfig = v.InferOutput<typeof ConfigSchema>;

function describe(issue: v.BaseIssue<unknown>): string {
  return issueLine(
    (issue.path ?? []).map((item) => item.key as string | number),
    valibotMessage(issue),
  );
}

// Cross-references a schema cannot see: every token site and default site must be configured.
function checkReferences(config: ServerConfig): string[] {
  const issues: string[] = [];
  const known = new Set(config.sites.map(siteKey));
  const unknown = (site: Site) => !known.has(siteKey(site));
  config.tokens.forEach((token, t) => {
    if (token.sites !== "*") {
      token.sites.forEach((site, s) => {
        if (unknown(site))
          issues.push(`tokens[${t}].sites[${s}]: Site ${site.siteType}/${site.siteId} is not in "sites"`);
      });
    }
    const { defaultSite } = token;
    if (defaultSite === undefined) return;
    if (unknown(defaultSite))
      issues.push(`tokens[${t}].defaultSite: Site ${defaultSite.siteType}/${defaultSite.siteId} is not in "sites"`);
    else if (!isTokenSite(token.sites, defaultSite)) {
      issues.push(`tokens[${t}].defaultSite: Must be one of the token's sites`);
    }
  });
  return issues;
}

// The storage as written, once its adapter is named: every key kept, since valibot's loose object
// leaves out "__proto__", "constructor" and "prototype", which the adapter's schema must see to refuse.
function writtenStorage(input: unknown): StorageConfig | undefined {
  const written = typeof input === "object" && input !== null ? (input as { storage?: unknown }).storage : undefined;
  if (written === undefined) return { ...DEFAULT_STORAGE };
  if (!v.is(StorageSchema, written)) return undefined;
  const { adapter, ...options } = written;
  return { adapter, ...options };
}

interface Parsed {
  /** The configuration, when it has no problem but maybe its storage's options. */
  readonly config?: ServerConfig;
  readonly issues: readonly string[];
  /** The storage, whenever its adapter is named, for its options to be checked beside the other problems. */
  readonly storage: StorageConfig | undefined;
}

function parse(input: unknown): Parsed {
  const storage = writtenStorage(input);
  const result = v.safeParse(ConfigSchema, input);
  if (!result.success) return { issues: result.issues.map(describe), storage };
  const issues = [...checkReferences(result.output), ...webhookIssues(result.output), ...historyIssues(result.output)];
  if (issues.length > 0 || storage === undefined) return { issues, storage };
  const { limits } = result.output;
  const bodyBytesInFlight = limits.bodyBytesInFlight ?? DEFAULT_BODY_BUDGET_FACTOR * limits.maxBodyBytes;
  return { config: { ...result.output, storage, limits: { ...limits, bodyBytesInFlight } }, issues, storage };
}

/**
 * Validates a parsed configuration, every default filled in; throws `ConfigError` naming every
 * bad key path. The storage's options are left as written: its adapter's schema validates them
 * when the adapter is loaded (`loadConfig`, `openStore`), which parsing alone does not do.
 */
export function parseConfig(input: unknown, source = "configuration"): ServerConfig {
  const { config, issues } = parse(input);
  if (config === undefined) throw new ConfigError(source, issues);
  return config;
}

/**
 * Reads and validates a JSON configuration file, the storage's options included: its adapter
 * module is loaded (from beside the file, for a package or a relative path) and its schema's
 * output, defaults applied, is the storage returned. Throws `ConfigError` naming every bad key.
 */
export async function loadConfig(file: string): Promise<ServerConfig> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    throw new ConfigError(file, [`Cannot read the file: ${(error as Error).message}`]);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    const { line, column } = placeOf(text, jsonErrorOffset(text) ?? 0);
    throw new ConfigError(file, [`Not valid JSON at line ${line}, column ${column}: ${(error as Error).message}`]);
  }
  const { config, issues, storage } = parse(json);
  // The storage's problems with the others', so that one run names every bad key of the file.
  let checked: CheckedStorage | undefined;
  let storageIssues: readonly string[] = [];
  if (storage !== undefined) {
    try {
      checked = await checkStorage(storage, { configDir: dirname(resolve(file)) }, file);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      storageIssues = error.issues;
    }
  }
  if (config === undefined || checked === undefined) throw new ConfigError(file, [...issues, ...storageIssues]);
  return { ...config, storage: checked.storage };
}
