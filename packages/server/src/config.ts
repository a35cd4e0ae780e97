// The standalone server's configuration file (CATALOG_CONFIG): its schema, defaults, and errors
// that name the key. Defaults and shapes come from the packages that own them (http-node's limits,
// adapter-redis's key prefix and replication, adapter-postgres's schema and pool size), so that
// the file cannot drift from them.
import { readFile } from "node:fs/promises";
import {
  DEFAULT_POOL_SIZE,
  DEFAULT_QUERY_TIMEOUT_MS,
  DEFAULT_SCHEMA,
  MIN_POOL_SIZE,
  schemaProblem,
} from "@catalog-kit/adapter-postgres";
import { DEFAULT_KEY_PREFIX, type Replication } from "@catalog-kit/adapter-redis";
import {
  DEFAULT_MAX_PRODUCTS,
  DEFAULT_MAX_STREAM_PRODUCTS,
  IDEMPOTENCY_DEFAULTS,
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
import { jsonErrorOffset, placeOf } from "./json-position.ts";

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
  }),
  v.check((token) => hasOneSecret(token), "Give exactly one of token and tokenSha256"),
);

const Whole = v.pipe(
  v.number("Must be a number"),
  v.integer("Must be an integer"),
  v.minValue(1, "Must be at least 1"),
);

// adapter-redis's `waitForReplicas`, checked against its type: a field it adds or renames fails to compile here.
const ReplicationSchema = v.strictObject({ replicas: Whole, timeoutMs: Whole }) satisfies v.GenericSchema<
  unknown,
  Replication
>;

const StorageSchema = v.pipe(
  v.variant(
    "adapter",
    [
      v.strictObject({ adapter: v.literal("memory") }),
      v.strictObject({
        adapter: v.literal("redis"),
        url: v.optional(
          v.pipe(v.string("Must be a string"), v.regex(/^rediss?:\/\//, "Must start with redis:// or rediss://")),
        ),
        cluster: v.optional(
          v.pipe(
            v.array(
              v.pipe(v.string("Must be a string"), v.regex(/^rediss?:\/\//, "Must start with redis:// or rediss://")),
            ),
            v.minLength(1, "Must list at least one node"),
          ),
        ),
        keyPrefix: v.optional(
          v.pipe(v.string("Must be a string"), v.minLength(1, "Must not be empty")),
          DEFAULT_KEY_PREFIX,
        ),
        waitForReplicas: v.optional(ReplicationSchema),
      }),
      v.strictObject({
        adapter: v.literal("postgres"),
        url: v.pipe(
          v.string("Must be a string"),
          v.regex(/^postgres(?:ql)?:\/\//, "Must start with postgres:// or postgresql://"),
        ),
        schema: v.optional(
          v.pipe(
            v.string("Must be a string"),
            v.rawCheck(({ dataset, addIssue }) => {
              const problem = dataset.typed ? schemaProblem(dataset.value) : undefined;
              if (problem !== undefined) addIssue({ message: problem });
            }),
          ),
          DEFAULT_SCHEMA,
        ),
        poolSize: v.optional(
          v.pipe(
            v.number("Must be a number"),
            v.integer("Must be an integer"),
            v.minValue(MIN_POOL_SIZE, `Must be at least ${MIN_POOL_SIZE}`),
          ),
          DEFAULT_POOL_SIZE,
        ),
        queryTimeoutMs: v.optional(
          v.pipe(
            v.number("Must be a number"),
            v.integer("Must be an integer"),
            v.minValue(1, "Must be at least 1"),
            v.maxValue(2 ** 31 - 1, "Must be at most 2147483647"),
          ),
          DEFAULT_QUERY_TIMEOUT_MS,
        ),
      }),
    ],
    'Must be { "adapter": "memory" }, { "adapter": "redis", ... } or { "adapter": "postgres", ... }',
  ),
  v.check(
    (storage) => storage.adapter !== "redis" || (storage.url === undefined) !== (storage.cluster === undefined),
    "A redis storage needs exactly one of url and cluster",
  ),
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

/** The schema of the server's configuration file (`CATALOG_CONFIG`); unknown keys are errors. */
export const ConfigSchema = v.strictObject({
  sites: v.pipe(v.array(ConfigSiteSchema), v.minLength(1, "Must list at least one site")),
  tokens: v.pipe(v.array(TokenSchema), v.minLength(1, "Must list at least one token")),
  storage: v.optional(StorageSchema, { adapter: "memory" }),
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
});

/** A validated server configuration, defaults applied. */
export type ServerConfig = v.InferOutput<typeof ConfigSchema>;

/** Where the storage of a configuration lives. */
export type StorageConfig = ServerConfig["storage"];

/** A configuration that cannot be used; `issues` name each offending key path. */
export class ConfigError extends Error {
  override name = "ConfigError";
  readonly issues: readonly string[];

  constructor(source: string, issues: readonly string[]) {
    super(`Invalid configuration in ${source}:\n${issues.map((issue) => `  - ${issue}`).join("\n")}`);
    this.issues = issues;
  }
}

function keyPath(path: readonly (string | number)[]): string {
  let text = "";
  for (const key of path) text += typeof key === "number" ? `[${key}]` : text === "" ? key : `.${key}`;
  return text === "" ? "(top level)" : text;
}

function describe(issue: v.BaseIssue<unknown>): string {
  const path = (issue.path ?? []).map((item) => item.key as string | number);
  // valibot reports an unknown key as one expected to be never, a missing key as one expected by name.
  const message =
    issue.expected === "never"
      ? "Unknown key"
      : issue.type === "strict_object" && issue.input === undefined
        ? "Required key is missing"
        : issue.message;
  return `${keyPath(path)}: ${message}`;
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

/** Validates a parsed configuration, every default filled in; throws `ConfigError` naming every bad key path. */
export function parseConfig(input: unknown, source = "configuration"): ServerConfig {
  const result = v.safeParse(ConfigSchema, input);
  if (!result.success) throw new ConfigError(source, result.issues.map(describe));
  const issues = checkReferences(result.output);
  if (issues.length > 0) throw new ConfigError(source, issues);
  const { limits } = result.output;
  const bodyBytesInFlight = limits.bodyBytesInFlight ?? DEFAULT_BODY_BUDGET_FACTOR * limits.maxBodyBytes;
  return { ...result.output, limits: { ...limits, bodyBytesInFlight } };
}

/** Reads and validates a JSON configuration file. */
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
  return parseConfig(json, file);
}
