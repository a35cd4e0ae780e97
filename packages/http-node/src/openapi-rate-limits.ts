// What /openapi.json says of the rate limits: the RateLimit-Policy and RateLimit headers every
// answer to an authenticated request carries when its token has limits, and the 429's example.

/** The headers of every answer to an authenticated request when the token has rate limits. */
export const RATE_LIMIT_HEADERS = {
  "RateLimit-Policy": { $ref: "#/components/headers/RateLimitPolicy" },
  RateLimit: { $ref: "#/components/headers/RateLimit" },
};

/** The components of the two headers, described once. */
export const RATE_LIMIT_HEADER_COMPONENTS = {
  RateLimitPolicy: {
    description:
      'The token\'s quotas (draft-ietf-httpapi-ratelimit-headers-11), when it has any: `"requests"` a minute (`q`, `w=60`, every authenticated request counts one), `"import-bytes"` a minute (`qu="content-bytes"`: import bodies as received), `"imports"` of one site running at once (`qu="concurrent-requests"`). Minutes are aligned to the clock; the quotas hold for every server on the storage, within a margin of what the other servers admitted in their last two settles (half a second).',
    schema: { type: "string" },
    example:
      '"requests";q=6000;w=60, "import-bytes";q=2147483648;qu="content-bytes";w=60, "imports";q=2;qu="concurrent-requests"',
  },
  RateLimit: {
    description:
      'What is left of each quota of `RateLimit-Policy`: `r` units, and for a minute\'s quota `t` seconds until it is given back; only the quotas the request spends: `"requests"` on every answer, `"import-bytes"` and `"imports"` (the places left among the site\'s running imports) on an import\'s. Absent when no quota has a value to give.',
    schema: { type: "string" },
    example: '"requests";r=5998;t=37, "import-bytes";r=2147482000;t=37, "imports";r=1',
  },
};

/** An example of a 429 `RATE_LIMITED` body. */
export const RATE_LIMITED_EXAMPLE = {
  type: "urn:catalog-kit:problem:rate-limited",
  title: "Rate limit reached",
  status: 429,
  detail: 'The token\'s quota "requests" is spent: 6000 in 60 s; try again in 37 s',
  code: "RATE_LIMITED",
  errors: [],
  errorCount: 0,
  limit: 6000,
  quota: "requests",
  window: 60,
};

/**
 * The answers of an operation that needs a token, each with the rate limit headers (sent when the
 * token has limits), but a 401: a refused token has none.
 */
export function rateLimited(answers: Record<string, object>): Record<string, object> {
  const all: Record<string, object> = {};
  for (const [status, answer] of Object.entries(answers)) {
    const { headers } = answer as { headers?: object };
    all[status] = status === "401" ? answer : { ...answer, headers: { ...headers, ...RATE_LIMIT_HEADERS } };
  }
  return all;
}
