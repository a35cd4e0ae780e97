// The options of `npm run faults` and what follows from them: durations, sizes, sites, tokens.
import { randomBytes } from "node:crypto";
import { parseArgs } from "node:util";
import type { Site } from "@catalog-kit/catalog-core";

const { values: args } = parseArgs({
  options: {
    quick: { type: "boolean", default: false },
    seconds: { type: "string" },
    clients: { type: "string" },
    "shutdown-products": { type: "string" },
    seed: { type: "string", default: "1" },
  },
  strict: true,
});
const quick = args.quick === true;
const numberArg = (value: string | undefined, fallback: number) => (value === undefined ? fallback : Number(value));
export const SECONDS = numberArg(args.seconds, quick ? 5 : 30);
export const CLIENTS = numberArg(args.clients, quick ? 4 : 6);
export const SHUTDOWN_PRODUCTS = numberArg(args["shutdown-products"], quick ? 8_000 : 30_000);
export const SEED = numberArg(args.seed, 1);
for (const [name, value] of Object.entries({ SECONDS, CLIENTS, SHUTDOWN_PRODUCTS, SEED })) {
  if (!Number.isFinite(value) || value < 1) throw new Error(`bad value for ${name}: ${value}`);
}
/** Ids each client owns; larger than the largest batch. */
export const IDS = quick ? 1_600 : 3_000;
/** Large batches go past the Redis adapter's default chunk of 1,000 products. */
export const LARGE = quick ? [1_100, 1_500] : [1_100, 2_500];
export const SMALL = [20, 200];
export const SHARED_SKUS = 16;
/** When Redis is killed, as fractions of the load's duration. */
export const CRASHES = quick ? [0.45] : [0.35, 0.7];
export const DOWN_MS = quick ? 500 : 1_000;
export const SHUTDOWN_MODES = quick
  ? (["mid-upload", "random"] as const)
  : (["mid-upload", "after-upload", "random", "before-request"] as const);
export type ShutdownMode = "mid-upload" | "after-upload" | "random" | "before-request";

export const SITE: Site = { siteType: "faults", siteId: "shop-1" };
export const SHUTDOWN_SITE: Site = { siteType: "faults", siteId: "shutdown" };
export const TOKEN = randomBytes(18).toString("base64url");
export const SHUTDOWN_TOKEN = randomBytes(18).toString("base64url");
export const KEY_PREFIX = "faults";
export const API = "/external/product/v1";
export const KEPT_EXAMPLES = 12;
