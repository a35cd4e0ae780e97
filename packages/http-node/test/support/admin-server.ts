// A test server with a tenants registry and an admin token, for the admin API and the scopes.
import { createMemoryStore } from "@catalog-kit/adapter-memory";
import { type CatalogStore, openTenantRegistry, type TenantRegistry } from "@catalog-kit/catalog-core";
import { fileTokenListings } from "../../src/access-token.ts";
import type { AuditEntry, HandlerOptions } from "../../src/index.ts";
import { BASE_TOKENS, SITES, startTestServer, type TestServer } from "./test-server.ts";

/** A file token with every scope, the admin API's among them. */
export const ROOT = "root-token-with-every-scope";
/** File tokens of one scope each. */
export const READER = "reader-token";
export const IMPORTER = "importer-token";
export const DELETER = "deleter-token";

/** The file's tokens of these tests: the usual ones (no `scopes`: every scope but admin), and these. */
export const ADMIN_TOKENS: HandlerOptions["tokens"] = [
  ...BASE_TOKENS,
  { token: ROOT, sites: "*", name: "root", scopes: ["read", "import", "delete", "admin"] },
  { token: READER, sites: "*", scopes: ["read"] },
  { token: IMPORTER, sites: "*", scopes: ["import"] },
  { token: DELETER, sites: "*", scopes: ["delete"] },
];

/** A server over `store` with a registry; its audit trail and the registry besides the usual. */
export interface AdminServer extends TestServer {
  readonly registry: TenantRegistry;
  readonly audit: AuditEntry[];
  readonly store: CatalogStore;
}

/** Starts a server whose registry reads `store` every `refreshMs` (default: a second, as deployed). */
export async function startAdminServer(
  store: CatalogStore = createMemoryStore(),
  refreshMs?: number,
): Promise<AdminServer> {
  const registry = await openTenantRegistry({
    store,
    ...(refreshMs === undefined ? {} : { refreshMs }),
    file: { sites: SITES, tokens: fileTokenListings(ADMIN_TOKENS) },
  });
  const audit: AuditEntry[] = [];
  const server = await startTestServer({ store, tokens: ADMIN_TOKENS, registry, audit: (entry) => audit.push(entry) });
  return {
    ...server,
    registry,
    audit,
    store,
    async close() {
      registry.close();
      await server.close();
    },
  };
}
