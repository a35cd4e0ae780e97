// TENANTS_READ: the tenants registry, or nothing while its version is the reader's.
import { script } from "../lua.ts";

/** The registry's version and every entry of that moment, or the version alone when it is `since`. */
export const TENANTS_READ = script({
  name: "tenants-read",
  keys: ["tenants", "tenantsVersion"],
  lua: `
--[[ tenants-read: ARGV[1] the version the reader has ("" for none). Returns {"ok", version}
  while the version is ARGV[1] (a GET and a compare: the cheap answer of every poll), else
  {"ok", version, key, value, key, value, ...}, read in this one step. ]]
local version = redis.call('GET', K.tenantsVersion) or '0'
if version == ARGV[1] then return {'ok', tonumber(version)} end
local reply = redis.call('HGETALL', K.tenants)
table.insert(reply, 1, tonumber(version))
table.insert(reply, 1, 'ok')
return reply
`,
  args: ({ since }: { since: number | undefined }) => [since === undefined ? "" : String(since)],
  replies: {
    ok: (reply) => ({ version: reply.int(0), pairs: reply.length > 1 ? reply.groups(1, 2) : undefined }),
  },
});
