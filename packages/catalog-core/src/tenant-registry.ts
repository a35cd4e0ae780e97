// The tenants registry: the sites and tokens of the configuration file and those made at run time,
// kept in the store's registry (`readTenants`, `writeTenant`) so that every process sharing the
// store sees a change within `refreshMs`. It holds the admin API's rules; its lookups are
// synchronous, for the hot path.
import { hash, randomBytes } from "node:crypto";
import * as v from "valibot";
import { CatalogError, conflict, siteNotFound } from "./errors.ts";
import { type Site, SiteSchema, siteKey } from "./site.ts";
import type { CatalogStore } from "./store.ts";
import {
  type SiteListing,
  type SiteRecord,
  siteEntryKey,
  type TokenListing,
  type TokenRecord,
  TokenRequestSchema,
  tokenEntryKey,
} from "./tenant-records.ts";
import { EMPTY_VIEW, type TenantView, viewOf } from "./tenant-view.ts";

/** Default of `TenantRegistryOptions.refreshMs`: a change is in force everywhere within a second. */
export const DEFAULT_REFRESH_MS = 1_000;

/** The sites and tokens of the configuration file: in force, listed with `source: "file"`, never deleted by the API. */
export interface FileTenants {
  readonly sites: readonly Site[];
  /** Each with its id (`file:<index>`) and name; never a secret. */
  readonly tokens: readonly TokenListing[];
}

/** How to open a registry. */
export interface TenantRegistryOptions {
  readonly store: CatalogStore;
  readonly file?: FileTenants;
  /** Milliseconds between two reads of the store's registry; default 1,000. */
  readonly refreshMs?: number;
  /**
   * Called with a failed refresh; the registry keeps what it knew, and the next one retries.
   * Without it, a failed first read rejects the open, and later failures are ignored.
   */
  readonly onError?: (error: unknown) => void;
}

/** A token just made: what the API lists of it, and its secret, which is never shown again. */
export interface CreatedToken {
  readonly token: TokenListing;
  readonly secret: string;
}

/** The tenants of a deployment, at most `refreshMs` behind the store. */
export interface TenantRegistry {
  /** Whether a site exists: in the file, or made through the API and not being deleted. */
  hasSite(site: Site): boolean;
  /** The API-made token whose secret has this hex SHA-256, unless it expired or was revoked. */
  tokenByDigest(sha256: string, now?: number): TokenRecord | undefined;
  /** The file's sites, then the API's in the order of their keys. */
  listSites(): SiteListing[];
  /** The file's tokens, then the API's by creation; never a secret. */
  listTokens(): TokenListing[];
  /** Makes a site; `CONFLICT` when it exists (in the file, the API, or being deleted). */
  createSite(input: unknown): Promise<SiteListing>;
  /** Deletes an API-made site, and with `deleteProducts` its products; answers how many went. */
  deleteSite(site: Site, options?: { readonly deleteProducts?: boolean }): Promise<{ readonly deleted: number }>;
  /** Makes a token from `{ name, sites, scopes, expiresAt?, rateLimits? }`; its secret is in the answer only. */
  createToken(input: unknown): Promise<CreatedToken>;
  /** Revokes an API-made token; `CONFLICT` for a file token or for `actingTokenId` itself. */
  revokeToken(id: string, actingTokenId?: string): Promise<TokenListing>;
  /** Reads the store's registry now (it is read every `refreshMs` and after each change made here). */
  refresh(): Promise<void>;
  /** Stops the timer; the store is the caller's to close. */
  close(): void;
}

// A VALIDATION_FAILED naming each bad field of an admin body by JSON pointer.
function parse<T>(schema: v.GenericSchema<unknown, T>, input: unknown, what: string): T {
  const result = v.safeParse(schema, input);
  if (result.success) return result.output;
  const problems = result.issues.map((issue) => ({
    pointer: `/${(issue.path ?? []).map((item) => String(item.key)).join("/")}`,
    message: issue.message,
  }));
  throw new CatalogError("VALIDATION_FAILED", `Invalid ${what}: ${problems[0]?.pointer} ${problems[0]?.message}`, {
    problems,
  });
}

const siteName = (site: Site) => `${site.siteType}/${site.siteId}`;
const listingOf = (record: TokenRecord): TokenListing => {
  const { sha256: _digest, ...listed } = record;
  return { ...listed, source: "api" };
};
const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Opens the registry over `store`: reads it once, then every `refreshMs` on a timer that keeps no process alive. */
export async function openTenantRegistry(options: TenantRegistryOptions): Promise<TenantRegistry> {
  const { store } = options;
  const refreshMs = options.refreshMs ?? DEFAULT_REFRESH_MS;
  const fileSites = new Map((options.file?.sites ?? []).map((site) => [siteKey(site), site]));
  const fileTokens = options.file?.tokens ?? [];
  let view: TenantView = EMPTY_VIEW;
  // Reads run one after the other, so that an older answer never replaces a newer one.
  let reading: Promise<void> = Promise.resolve();

  async function read(): Promise<void> {
    const answer = await store.readTenants(view === EMPTY_VIEW ? undefined : view.version);
    if (answer !== undefined && answer.version > view.version) view = viewOf(answer.version, answer.entries, view);
  }

  function refresh(): Promise<void> {
    // After the one before, whether it failed or not: a failed read must not fail every later one.
    reading = reading.then(read, read);
    return reading;
  }

  // A store that does not answer at start-up is read again on the timer: with `onError`, the
  // registry opens meanwhile (the file's sites and tokens in force), as a server starts in an outage.
  await refresh().catch((error: unknown) => {
    if (options.onError === undefined) throw error;
    options.onError(error);
  });
  const timer = setInterval(() => refresh().catch((error: unknown) => options.onError?.(error)), refreshMs);
  timer.unref();

  // Writes one change, then reads the registry, so that this process answers from it at once.
  async function write(key: string, value: string | null, when: "absent" | "present"): Promise<boolean> {
    const applied = await store.writeTenant({ key, value, when });
    await refresh();
    return applied;
  }

  function apiSite(site: Site): SiteRecord {
    if (fileSites.has(siteKey(site)))
      throw conflict(`Site ${siteName(site)} comes from the configuration file: remove it there`);
    const record = view.sites.get(siteKey(site));
    if (record === undefined) throw siteNotFound(site);
    return record;
  }

  function hasSite(site: Site): boolean {
    const key = siteKey(site);
    if (fileSites.has(key)) return true;
    const record = view.sites.get(key);
    return record !== undefined && record.deleting !== true;
  }

  async function holdsProducts(site: Site): Promise<boolean> {
    return (await store.list(site, undefined, 1)).length > 0;
  }

  // Deletes every product of the site in one atomic step (a replace with nothing); answers how many.
  async function empty(site: Site): Promise<number> {
    const result = await (await store.beginImport(site, { dryRun: false, replace: true })).commit();
    return result.applied ? (result.counts.deleted ?? 0) : 0;
  }

  return {
    hasSite,

    tokenByDigest(sha256, now = Date.now()) {
      const token = view.byDigest.get(sha256);
      return token !== undefined && now < token.expiresAtMs ? token.record : undefined;
    },

    listSites() {
      const file = [...fileSites.values()].map((site): SiteListing => ({ ...site, source: "file" }));
      const api = [...view.sites.entries()]
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([, record]) => record)
        .map(
          ({ siteId, siteType, createdAt, deleting }): SiteListing => ({
            siteId,
            siteType,
            source: "api",
            createdAt,
            ...(deleting ? { deleting } : {}),
          }),
        );
      return [...file, ...api];
    },

    listTokens() {
      const api = [...view.tokens.values()].map((token) => token.record);
      api.sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.id < b.id ? -1 : 1));
      return [...fileTokens, ...api.map(listingOf)];
    },

    async createSite(input) {
      const site = parse(SiteSchema, input, "site");
      if (fileSites.has(siteKey(site))) throw conflict(`Site ${siteName(site)} exists (in the configuration file)`);
      const existing = view.sites.get(siteKey(site));
      if (existing !== undefined) {
        throw conflict(`Site ${siteName(site)} ${existing.deleting ? "is being deleted" : "exists"}`);
      }
      // A site is made empty: products a raced import left under its names (see deleteSite) go
      // first, while no process can import into it (it has no entry yet).
      if (await holdsProducts(site)) await empty(site);
      const record: SiteRecord = { siteId: site.siteId, siteType: site.siteType, createdAt: new Date().toISOString() };
      // Two servers creating one site at once: the store applies one write, the other is told so.
      if (!(await write(siteEntryKey(site), JSON.stringify(record), "absent"))) {
        throw conflict(`Site ${siteName(site)} exists`);
      }
      return { ...record, source: "api" };
    },

    async deleteSite(site, { deleteProducts = false } = {}) {
      const record = apiSite(site);
      const key = siteEntryKey(site);
      if (!deleteProducts && (await holdsProducts(site))) {
        throw conflict(`Site ${siteName(site)} holds products: delete them with it (deleteProducts=true), or first`);
      }
      // The order leaves nothing half-made. The mark comes first: from then on (within refreshMs
      // on every process) the site refuses imports and reads as absent, so no new product can
      // arrive. Its products then go in one atomic replace with nothing. The entry goes last: a
      // process that dies before leaves the site listed as `deleting`, and a DELETE again resumes
      // there; never is a site gone while products of it remain that it could not delete. (An
      // import another process began before it saw the mark may still commit after the replace:
      // the products it leaves are those of no site, and createSite deletes them before it makes
      // a site of these names again.)
      if (record.deleting !== true) {
        const marked: SiteRecord = { ...record, deleting: true };
        if (!(await write(key, JSON.stringify(marked), "present"))) throw siteNotFound(site);
        await delay(refreshMs);
      }
      let deleted = 0;
      if (deleteProducts) deleted = await empty(site);
      else if (await holdsProducts(site)) {
        // Products arrived between the check and the mark: give the site back as it was.
        await write(key, JSON.stringify(record), "present");
        throw conflict(`Site ${siteName(site)} holds products: delete them with it (deleteProducts=true), or first`);
      }
      // Another process finishing the same deletion first has removed the entry: the site is gone either way.
      await write(key, null, "present");
      return { deleted };
    },

    async createToken(input) {
      const request = parse(TokenRequestSchema, input, "token");
      if (request.sites !== "*") {
        const problems = request.sites.flatMap((site, i) =>
          hasSite(site) ? [] : [{ pointer: `/sites/${i}`, message: `Site ${siteName(site)} does not exist` }],
        );
        if (problems.length > 0) {
          throw new CatalogError("VALIDATION_FAILED", `Invalid token: ${problems[0]?.message}`, { problems });
        }
      }
      if (request.expiresAt !== undefined && Date.parse(request.expiresAt) <= Date.now()) {
        const problems = [{ pointer: "/expiresAt", message: "Must be in the future" }];
        throw new CatalogError("VALIDATION_FAILED", "Invalid token: /expiresAt Must be in the future", { problems });
      }
      // 256 bits from the system's generator: guessing one is out of reach, so its SHA-256 alone is kept.
      const secret = `ck_${randomBytes(32).toString("base64url")}`;
      const record: TokenRecord = {
        // Hex, never base64url: an id that began with "-" would read as an option on a command line.
        id: randomBytes(12).toString("hex"),
        ...request,
        sha256: hash("sha256", secret, "hex"),
        createdAt: new Date().toISOString(),
      };
      if (!(await write(tokenEntryKey(record.id), JSON.stringify(record), "absent"))) {
        throw new CatalogError("STORAGE_UNAVAILABLE", "A new token's id was taken: try again");
      }
      return { token: listingOf(record), secret };
    },

    async revokeToken(id, actingTokenId) {
      if (fileTokens.some((token) => token.id === id)) {
        throw conflict(`Token ${id} comes from the configuration file: remove it there`);
      }
      const token = view.tokens.get(id);
      if (token === undefined) throw new CatalogError("TOKEN_NOT_FOUND", `No token with id "${id}"`);
      if (id === actingTokenId) {
        throw conflict("A token cannot revoke itself: create its successor, move to it, and revoke this one with it");
      }
      if (!(await write(tokenEntryKey(id), null, "present"))) {
        throw new CatalogError("TOKEN_NOT_FOUND", `No token with id "${id}"`);
      }
      return listingOf(token.record);
    },

    refresh,
    close: () => clearInterval(timer),
  };
}
