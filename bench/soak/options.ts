// The options of `npm run soak` and what follows from them: durations, sizes, the site, the token.
import { randomBytes } from "node:crypto";
import { parseArgs } from "node:util";
import type { Site } from "@catalog-kit/catalog-core";

const { values: args } = parseArgs({
  options: {
    quick: { type: "boolean", default: false },
    only: { type: "string", multiple: true },
    seconds: { type: "string" },
    warmup: { type: "string" },
    connections: { type: "string" },
    "ids-per-connection": { type: "string" },
    "rss-bound-mb": { type: "string", default: "64" },
    seed: { type: "string", default: "1" },
  },
  strict: true,
});
const quick = args.quick === true;
const numberArg = (value: string | undefined, fallback: number) => (value === undefined ? fallback : Number(value));
export const SECONDS = numberArg(args.seconds, quick ? 3 : 20);
export const WARMUP_SECONDS = numberArg(args.warmup, quick ? 1 : 5);
export const CONNECTIONS = numberArg(args.connections, 50);
export const IDS = numberArg(args["ids-per-connection"], quick ? 40 : 200);
export const RSS_BOUND = numberArg(args["rss-bound-mb"], 64) * 1_048_576;
export const SEED = numberArg(args.seed, 1);
export const ADAPTERS = (["memory", "redis"] as const).filter((a) => args.only === undefined || args.only.includes(a));
for (const [name, value] of Object.entries({ SECONDS, WARMUP_SECONDS, CONNECTIONS, IDS, RSS_BOUND, SEED })) {
  if (!Number.isFinite(value) || value < 0) throw new Error(`bad value for ${name}: ${value}`);
}

export const SITE: Site = { siteType: "soak", siteId: "shop-1" };
export const TOKEN = randomBytes(18).toString("base64url");
export const KEY_PREFIX = "soak";
export const API = "/external/product/v1";
export const SITE_QUERY = `siteId=${SITE.siteId}&siteType=${SITE.siteType}`;
export const SKU_VARIANTS = 3;
export const MAX_BATCH = 100;
export const KEPT_EXAMPLES = 10;

export function log(line: string): void {
  process.stdout.write(`${line}\n`);
}
