// Which site a request may use: the one place that weighs a token's sites, its default site and,
// when asked, the sites that exist, for every route. A site the token does not cover gets exactly
// the answer of a site that does not exist.
import { type Catalog, CatalogError, type Site, siteNotFound } from "@catalog-kit/catalog-core";
import type { Grant } from "./auth.ts";
import type { ProblemEntry } from "./problem.ts";

/**
 * The site a request may use: the one it names, if the token covers it, else the token's default
 * site when it names none. `SITE_REQUIRED`, naming the query parameters, when neither can be had or
 * only one of siteId and siteType is given; `SITE_NOT_FOUND` for a site the token does not cover
 * or, given `catalog` (for a body read before the catalog is called), one that does not exist.
 */
export function siteFor(
  grant: Grant,
  siteId: string | undefined,
  siteType: string | undefined,
  catalog?: Pick<Catalog, "hasSite">,
): Site {
  if (siteId === undefined && siteType === undefined) {
    if (grant.defaultSite !== undefined) return grant.defaultSite;
    const message = "Required: this token has no default site";
    throw new CatalogError("SITE_REQUIRED", "Give siteId and siteType: this token has no default site", {
      problems: [
        { parameter: "siteId", message },
        { parameter: "siteType", message },
      ],
    });
  }
  if (siteId === undefined || siteType === undefined) {
    const [missing, given] = siteId === undefined ? ["siteId", "siteType"] : ["siteType", "siteId"];
    throw new CatalogError("SITE_REQUIRED", `Give both siteId and siteType, or neither; ${missing} is missing`, {
      problems: [{ parameter: missing, message: `Required when ${given} is given` }],
    });
  }
  const site: Site = { siteId, siteType };
  if (!grant.covers(site) || (catalog !== undefined && !catalog.hasSite(site))) throw siteNotFound(site);
  return site;
}

/** A site's two names, each given or not. */
export interface SiteNames {
  readonly siteId: string | undefined;
  readonly siteType: string | undefined;
}

const SITE_NAMES = ["siteId", "siteType"] as const;

// The site names of a request: each from its query parameter or, deprecated, the JSON body's
// field, which must agree where both are given. An empty parameter, or two names that differ,
// joins `problems`, which are then thrown as one `VALIDATION_FAILED`.
function siteNames(query: Readonly<Record<string, string>>, body: SiteNames | undefined, problems: ProblemEntry[]) {
  const names: Record<string, string | undefined> = {};
  for (const name of SITE_NAMES) {
    const given = query[name];
    const field = body?.[name];
    if (given === "") {
      problems.push({ parameter: name, message: `Query parameter ${name} must not be empty` });
    } else if (given !== undefined && field !== undefined && given !== field) {
      const message = `Query parameter ${name} and the body's ${name} name different sites`;
      problems.push({ parameter: name, pointer: `/${name}`, message });
    }
    names[name] = given ?? field;
  }
  if (problems.length > 0) throw new CatalogError("VALIDATION_FAILED", "Invalid query parameters", { problems });
  return names;
}

/** What `requestSite` may be told besides the request's query. */
export interface SiteSources {
  /** The names a JSON body gives in its deprecated fields. */
  readonly body?: SiteNames;
  /** Asked whether the site exists, for a body read before the catalog is called. */
  readonly catalog?: Pick<Catalog, "hasSite">;
  /** The query's other problems, answered with the site's in one `VALIDATION_FAILED`. */
  readonly problems?: ProblemEntry[];
}

/**
 * The site of a request, by the one rule of every route: the siteId and siteType query parameters,
 * else the JSON body's (deprecated) fields, else the token's default site; see `siteFor`.
 */
export function requestSite(
  request: { readonly grant: Grant; readonly params: Readonly<Record<string, string>> },
  sources: SiteSources = {},
): Site {
  const { siteId, siteType } = siteNames(request.params, sources.body, sources.problems ?? []);
  return siteFor(request.grant, siteId, siteType, sources.catalog);
}
