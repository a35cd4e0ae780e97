// ACQUIRE: the site lock, taken or renewed.
import { type LockArgs, script } from "../lua.ts";

/** Takes the site lock for an import, and says whether a committed import is still merging. */
export const ACQUIRE = script({
  name: "acquire",
  keys: ["products"],
  lua: `
--[[ acquire: takes the lock unless another token holds it and it has not expired. Taking it
  again with the same token renews it.
  ARGV[1] token  ARGV[2] ttl (ms)
  Returns {"busy"} when another token holds it; else {"ok", 1 if an import is merging else 0} ]]
local h = holder(K.products)
if h and h ~= ARGV[1] then return {'busy'} end
hold(K.products, ARGV[1], ARGV[2])
return {'ok', redis.call('HEXISTS', K.products, MERGING)}
`,
  args: ({ token, lockTtlMs }: LockArgs) => [token, lockTtlMs],
  replies: {
    busy: null,
    ok: (reply) => ({ merging: reply.int(0) === 1 }),
  },
});
