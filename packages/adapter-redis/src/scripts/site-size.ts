// SITE_SIZE: the size of a site, read under its lock.
import { type LockArgs, script } from "../lua.ts";

/** How many products the site holds, read under the lock (what a replace deletes is counted from it). */
export const SITE_SIZE = script({
  name: "site-size",
  keys: ["products"],
  lua: `
--[[ site-size: ARGV[1] lock token  ARGV[2] lock ttl (ms)
  Returns {"lost"} when the lock is not ours; else {"ok", how many products the site holds}
  (renewing the lock). ]]
if holder(K.products) ~= ARGV[1] then return {'lost'} end
hold(K.products, ARGV[1], ARGV[2])
return {'ok', size(K.products)}
`,
  args: ({ token, lockTtlMs }: LockArgs) => [token, lockTtlMs],
  replies: {
    lost: null,
    ok: (reply) => ({ size: reply.int(0) }),
  },
});
