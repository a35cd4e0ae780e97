// KEY_RELEASE: an idempotency key's claim given back.
import { script } from "../lua.ts";

/** Ends a claim if it is still the token's: a lapsed claim's release frees no other. */
export const KEY_RELEASE = script({
  name: "key-release",
  keys: ["keyClaim"],
  lua: `
--[[ key-release: ARGV[1] the claim's token. Returns {"ok"} when the claim was the token's (now
  deleted), else {"lost"} (it lapsed, or another took the key since): nothing done. Running it
  twice is harmless. ]]
if redis.call('GET', K.keyClaim) == ARGV[1] then
  redis.call('DEL', K.keyClaim)
  return {'ok'}
end
return {'lost'}
`,
  args: ({ token }: { token: string }) => [token],
  replies: { ok: null, lost: null },
});
