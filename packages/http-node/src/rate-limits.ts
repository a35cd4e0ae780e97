// Per-token rate limits, published as draft-ietf-httpapi-ratelimit-headers-11 says: a token's
// quotas decided on the usage meter's counts (no store round trip), `RateLimit-Policy` and
// `RateLimit` on every answer to an authenticated request, and 429 `RATE_LIMITED` past a quota.
import {
  CatalogError,
  createUsageMeter,
  type RateLimits,
  RateLimitsSchema,
  type Site,
  siteKey,
  type UsageMeter,
  type WindowCount,
} from "@catalog-kit/catalog-core";
import * as v from "valibot";
import type { AccessToken } from "./access-token.ts";
import type { Grant } from "./auth.ts";
import type { RequestContext } from "./context.ts";
import { HttpError } from "./problem.ts";
import { policyLine, RateLimitFields } from "./rate-limit-fields.ts";

/** The window of `requestsPerMinute` and `importBytesPerMinute`: a minute, aligned to the clock. */
export const RATE_WINDOW_SECONDS = 60;
/** Seconds a client refused a place among a site's imports waits before asking again. */
export const IMPORTS_RETRY_SECONDS = 5;

const WINDOW_MS = RATE_WINDOW_SECONDS * 1_000;
// A Structured Fields Integer has at most 15 digits; a larger quota is published as that.
const SF_MAX = 999_999_999_999_999;
const sf = (value: number) => Math.min(value, SF_MAX);

// Headers set once the request's own (`Deprecation`) may be there already.
function setHeaders(ctx: RequestContext, headers: Readonly<Record<string, string>>): void {
  ctx.headers = ctx.headers === undefined ? headers : { ...ctx.headers, ...headers };
}

// The quotas of one grant, worked out at its first request: its limits, its counts, its policy field.
interface Plan {
  readonly owner: string;
  readonly requestsPerMinute: number;
  readonly importBytesPerMinute: number;
  readonly importsPerSite: number | undefined;
  readonly requests: WindowCount | undefined;
  readonly bytes: WindowCount | undefined;
  /** The `RateLimit-Policy` field, and the headers of an answer that has no `RateLimit` field. */
  readonly policy: string;
  /** The policy's header line, when it can be written as it is (`RateLimitFields`). */
  readonly policyLine: string | undefined;
  readonly policyOnly: Readonly<Record<string, string>>;
}

/** What a body's limiter says of each chunk: an error cuts the body off. */
export type ChunkCheck = (bytes: number) => Error | undefined;

/** The rate limits of one handler. */
export interface RateLimiter {
  /** Counts a request against its token's `requests` quota and sets its `RateLimit` headers; throws `RATE_LIMITED`. */
  admit(ctx: RequestContext): void;
  /**
   * Counts an import body against `import-bytes`: a declared length whole, before a byte is read
   * (`RATE_LIMITED` when it does not fit what is left, `PAYLOAD_TOO_LARGE` over the whole quota);
   * else each chunk as it arrives, through the check returned.
   */
  body(ctx: RequestContext, declared: number): ChunkCheck | undefined;
  /** Takes a place among the token's running imports of `site`; answers its release, or throws `RATE_LIMITED`. */
  enterImport(ctx: RequestContext, site: Site): (() => void) | undefined;
}

function rateLimited(quota: string, limit: number, window: number | undefined, retryAfter: number): CatalogError {
  const per = window === undefined ? "at once" : `in ${window} s`;
  return new CatalogError(
    "RATE_LIMITED",
    `The token's quota "${quota}" is spent: ${limit} ${per}; try again in ${retryAfter} s`,
    { limit, quota, retryAfter, ...(window === undefined ? {} : { window }) },
  );
}

function policyOf(requests: number, bytes: number, imports: number | undefined): string {
  const items: string[] = [];
  if (requests !== Infinity) items.push(`"requests";q=${sf(requests)};w=${RATE_WINDOW_SECONDS}`);
  if (bytes !== Infinity) items.push(`"import-bytes";q=${sf(bytes)};qu="content-bytes";w=${RATE_WINDOW_SECONDS}`);
  if (imports !== undefined) items.push(`"imports";q=${imports};qu="concurrent-requests"`);
  return items.join(", ");
}

// A handler's limits are checked when it is made, each bad one named: a quota of 0 would refuse
// every request, at run time, with no word of why.
function checkLimits(limits: RateLimits | undefined, where: string): void {
  if (limits === undefined) return;
  const result = v.safeParse(RateLimitsSchema, limits);
  if (result.success) return;
  const [issue] = result.issues;
  const path = issue.path?.map((item) => String(item.key)).join(".");
  throw new RangeError(`${where}${path === undefined ? "" : `.${path}`}: ${issue.message}`);
}

/**
 * Creates the rate limits of a handler: `defaults` for tokens without their own, counted on
 * `meter`; throws `RangeError` naming a bad quota of `defaults` or of a token's own.
 */
export function createRateLimiter(
  defaults: RateLimits | undefined,
  meter: UsageMeter = createUsageMeter(),
  tokens: readonly AccessToken[] = [],
): RateLimiter {
  checkLimits(defaults, "rateLimits");
  for (const [index, token] of tokens.entries()) checkLimits(token.rateLimits, `tokens[${index}].rateLimits`);
  const plans = new WeakMap<Grant, Plan | null>();

  function planOf(grant: Grant): Plan | undefined {
    const known = plans.get(grant);
    if (known !== undefined) return known ?? undefined;
    const own = grant.rateLimits;
    const requestsPerMinute = own?.requestsPerMinute ?? defaults?.requestsPerMinute;
    const importBytesPerMinute = own?.importBytesPerMinute ?? defaults?.importBytesPerMinute;
    const importsPerSite = own?.importsPerSite ?? defaults?.importsPerSite;
    if (requestsPerMinute === undefined && importBytesPerMinute === undefined && importsPerSite === undefined) {
      plans.set(grant, null);
      return undefined;
    }
    const owner = grant.tokenId;
    const policy = policyOf(requestsPerMinute ?? Infinity, importBytesPerMinute ?? Infinity, importsPerSite);
    const plan: Plan = {
      owner,
      requestsPerMinute: requestsPerMinute ?? Infinity,
      importBytesPerMinute: importBytesPerMinute ?? Infinity,
      importsPerSite,
      requests: requestsPerMinute === undefined ? undefined : meter.window(owner, "requests", WINDOW_MS),
      bytes: importBytesPerMinute === undefined ? undefined : meter.window(owner, "import-bytes", WINDOW_MS),
      policy,
      policyLine: policyLine(policy),
      policyOnly: { "ratelimit-policy": policy },
    };
    plans.set(grant, plan);
    return plan;
  }

  // The places left among the running imports of a request's site, once it took one.
  const placesLeft = new WeakMap<RequestContext, number>();

  // The `RateLimit` field: the quotas the request spends (a GET, requests only; an import, its
  // bytes too, and the places left among its site's imports), each's remaining units and seconds
  // to its reset. Only these: every byte of a header costs each answer's writing.
  function headersOf(plan: Plan, now: number, ctx?: RequestContext): Readonly<Record<string, string>> {
    const { requests } = plan;
    const bytes = ctx === undefined ? undefined : plan.bytes;
    const imports = ctx === undefined ? undefined : placesLeft.get(ctx);
    let field = "";
    if (requests !== undefined) {
      const left = Math.max(0, plan.requestsPerMinute - requests.used(now));
      field = `"requests";r=${sf(left)};t=${Math.ceil((requests.endOf(now) - now) / 1_000)}`;
    }
    if (bytes !== undefined) {
      const left = Math.max(0, plan.importBytesPerMinute - bytes.used(now));
      const item = `"import-bytes";r=${sf(left)};t=${Math.ceil((bytes.endOf(now) - now) / 1_000)}`;
      field = field === "" ? item : `${field}, ${item}`;
    }
    if (imports !== undefined) {
      const item = `"imports";r=${Math.max(0, imports)}`;
      field = field === "" ? item : `${field}, ${item}`;
    }
    if (field === "") return plan.policyOnly;
    const line = plan.policyLine;
    return line === undefined
      ? { "ratelimit-policy": plan.policy, ratelimit: field }
      : new RateLimitFields(plan.policy, line, field);
  }

  const secondsLeft = (count: WindowCount, now: number) => Math.max(1, Math.ceil((count.endOf(now) - now) / 1_000));

  return {
    admit(ctx) {
      const { grant } = ctx;
      if (grant.rateLimits === undefined && defaults === undefined) return;
      const plan = planOf(grant);
      if (plan === undefined) return;
      const now = meter.now();
      const { requests } = plan;
      const admitted = requests === undefined || requests.take(now, 1, plan.requestsPerMinute);
      ctx.headers = headersOf(plan, now);
      if (!admitted) {
        throw rateLimited("requests", plan.requestsPerMinute, RATE_WINDOW_SECONDS, secondsLeft(requests, now));
      }
    },

    body(ctx, declared) {
      const plan = planOf(ctx.grant);
      const bytes = plan?.bytes;
      if (plan === undefined || bytes === undefined) return undefined;
      const limit = plan.importBytesPerMinute;
      const now = meter.now();
      const refuse = (at: number) => {
        setHeaders(ctx, headersOf(plan, at, ctx));
        return rateLimited("import-bytes", limit, RATE_WINDOW_SECONDS, secondsLeft(bytes, at));
      };
      if (Number.isSafeInteger(declared) && declared >= 0) {
        if (declared > limit) {
          throw new HttpError(
            "PAYLOAD_TOO_LARGE",
            `The token may send ${limit} bytes of import bodies a minute (quota "import-bytes"); this body has ${declared}: send it in parts`,
            { limit, received: declared },
          );
        }
        // Taken whole before a byte is read: two bodies of one token never both count on the same bytes left.
        if (!bytes.take(now, declared, limit)) throw refuse(now);
        setHeaders(ctx, headersOf(plan, now, ctx));
        return undefined;
      }
      if (bytes.used(now) >= limit) throw refuse(now);
      return (chunk) => {
        const at = meter.now();
        return bytes.add(at, chunk) > limit ? refuse(at) : undefined;
      };
    },

    enterImport(ctx, site) {
      const plan = planOf(ctx.grant);
      const limit = plan?.importsPerSite;
      if (plan === undefined || limit === undefined) return undefined;
      const now = meter.now();
      const running = meter.running(plan.owner, `imports:${siteKey(site)}`);
      const leave = running.enter(now, limit);
      placesLeft.set(ctx, limit - running.running());
      setHeaders(ctx, headersOf(plan, now, ctx));
      if (leave === undefined) throw rateLimited("imports", limit, undefined, IMPORTS_RETRY_SECONDS);
      return leave;
    },
  };
}
