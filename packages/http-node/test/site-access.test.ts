// One place decides which site a request may use, for every route: the site it names if the token
// covers it (and, when asked, it exists), else the token's default site; checked against the rules
// as a plain model.
import type { Site } from "@catalog-kit/catalog-core";
import { fc, test } from "@fast-check/vitest";
import { expect } from "vitest";
import type { AccessToken } from "../src/access-token.ts";
import { createAuthenticator } from "../src/auth.ts";
import { siteFor } from "../src/site-access.ts";

const POOL: Site[] = [
  { siteId: "a", siteType: "shop" },
  { siteId: "b", siteType: "shop" },
  { siteId: "a", siteType: "other" },
];
const same = (x: Site, y: Site) => x.siteId === y.siteId && x.siteType === y.siteType;

const tokenArb = fc
  .oneof(fc.constant("*" as const), fc.subarray(POOL))
  .chain((sites) =>
    fc.record({
      sites: fc.constant(sites),
      defaultSite: fc.option(fc.constantFrom(...(sites === "*" ? POOL : [...sites, POOL[0] as Site])), {
        nil: undefined,
      }),
    }),
  )
  .filter((t) => t.defaultSite === undefined || t.sites === "*" || t.sites.some((s) => same(s, t.defaultSite as Site)));
const name = fc.option(fc.constantFrom("a", "b", "shop", "other"), { nil: undefined });

test.prop([tokenArb, name, name, fc.subarray(POOL), fc.boolean()], { numRuns: 500 })(
  "answers the site, SITE_REQUIRED or SITE_NOT_FOUND as the rules say",
  (token, siteId, siteType, existing, askCatalog) => {
    const grant = createAuthenticator([{ token: "t", ...token } as AccessToken])("t");
    const catalog = { hasSite: (site: Site) => existing.some((own) => same(own, site)) };
    const fallback =
      token.defaultSite ?? (token.sites !== "*" && token.sites.length === 1 ? token.sites[0] : undefined);
    let expected: Site | string;
    if (siteId === undefined && siteType === undefined) expected = fallback ?? "SITE_REQUIRED";
    else if (siteId === undefined || siteType === undefined) expected = "SITE_REQUIRED";
    else {
      const site = { siteId, siteType };
      const covered = token.sites === "*" || token.sites.some((own) => same(own, site));
      expected = covered && (!askCatalog || catalog.hasSite(site)) ? site : "SITE_NOT_FOUND";
    }
    const decide = () => siteFor(grant, siteId, siteType, askCatalog ? catalog : undefined);
    if (typeof expected === "string") expect(decide).toThrow(expect.objectContaining({ code: expected }));
    else expect(decide()).toEqual(expected);
  },
);

test.prop([fc.constantFrom(...POOL)])(
  "a site the token does not cover is refused as one that does not exist",
  (site) => {
    const uncovered = createAuthenticator([{ token: "t", sites: [] }])("t");
    const covered = createAuthenticator([{ token: "t", sites: "*" }])("t");
    const refusal = (run: () => Site) => {
      try {
        run();
      } catch (error) {
        return error;
      }
      return undefined;
    };
    const a = refusal(() => siteFor(uncovered, site.siteId, site.siteType));
    const b = refusal(() => siteFor(covered, site.siteId, site.siteType, { hasSite: () => false }));
    expect(a).toEqual(b);
    expect(a).toMatchObject({ code: "SITE_NOT_FOUND" });
  },
);
