// RELEASE: the site lock, given back.
import { script } from "../lua.ts";

/** Gives the lock back if it is still the token's (expired or not). */
export const RELEASE = script({
  name: "release",
  keys: ["products"],
  lua: `
--[[ release: ARGV[1] token. Returns {"ok"} when the lock was the token's, else {"lost"}. Running
  it twice is harmless: the second run finds the lock gone or another's. ]]
local lock = redis.call('HGET', K.products, LOCK)
if lock and string.sub(lock, 1, #ARGV[1] + 1) == ARGV[1] .. ' ' then
  redis.call('HDEL', K.products, LOCK)
  return {'ok'}
end
return {'lost'}
`,
  args: ({ token }: { token: string }) => [token],
  replies: { ok: null, lost: null },
});
