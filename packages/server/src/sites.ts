// The configured sites as the catalog and the handler each take them: the catalog knows a site by
// its names only, the handler also needs the currency of its prices, for feed exports.
import { type Site, siteKey } from "@catalog-kit/catalog-core";
import type { ServerConfig } from "./config.ts";

/** The configuration's sites as `createCatalog` takes them: their names only. */
export function catalogSites(config: ServerConfig): Site[] {
  return config.sites.map(({ siteId, siteType }) => ({ siteId, siteType }));
}

/** The handler's `siteCurrency`: each configured site's `currency`, `undefined` where it names none. */
export function siteCurrencies(config: ServerConfig): (site: Site) => string | undefined {
  const currencies = new Map<string, string>();
  for (const site of config.sites) if (site.currency !== undefined) currencies.set(siteKey(site), site.currency);
  return (site) => currencies.get(siteKey(site));
}
