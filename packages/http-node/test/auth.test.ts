import { createHash } from "node:crypto";
import { fc, test } from "@fast-check/vitest";
import { expect } from "vitest";
import { createAuthenticator } from "../src/auth.ts";

const siteA = { siteId: "a", siteType: "shop" };
const siteB = { siteId: "b", siteType: "shop" };
const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

// Tokens that have matched are remembered with their digest: any order of presentation, repeats
// included, must give the same answers as checking each token afresh.
test.prop([fc.array(fc.oneof(fc.constantFrom("alpha", "beta", "alph", "alpha ", sha256("beta")), fc.string()))], {
  numRuns: 300,
})("accepts exactly the configured tokens, each with its own sites, in any order and repetition", (presented) => {
  const authenticate = createAuthenticator([
    { token: "alpha", sites: [siteA] },
    { tokenSha256: sha256("beta"), sites: [siteB] },
  ]);
  for (const token of presented) {
    if (token === "alpha" || token === "beta") {
      const grant = authenticate(token);
      expect([grant.covers(siteA), grant.covers(siteB)]).toEqual(token === "alpha" ? [true, false] : [false, true]);
    } else {
      expect(() => authenticate(token)).toThrow(expect.objectContaining({ code: "UNAUTHORIZED" }));
    }
  }
});
