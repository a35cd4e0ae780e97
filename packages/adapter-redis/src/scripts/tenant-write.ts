// TENANT_WRITE: one conditional change of the tenants registry, with its version.
import { script } from "../lua.ts";

/** Creates, changes or deletes one entry when its condition holds, and counts the version up. */
export const TENANT_WRITE = script({
  name: "tenant-write",
  keys: ["tenants", "tenantsVersion"],
  lua: `
--[[ tenant-write: ARGV[1] the entry's key  ARGV[2] "absent" or "present"  ARGV[3] "set" or
  "delete"  ARGV[4] the value (for "set"). Returns {"ok"} when the entry was (ARGV[2] "present")
  or was not ("absent") there, the change made and the version INCR'd; else {"unmet"}, nothing
  written. ]]
local there = redis.call('HEXISTS', K.tenants, ARGV[1]) == 1
if there ~= (ARGV[2] == 'present') then return {'unmet'} end
if ARGV[3] == 'delete' then
  redis.call('HDEL', K.tenants, ARGV[1])
else
  redis.call('HSET', K.tenants, ARGV[1], ARGV[4])
end
redis.call('INCR', K.tenantsVersion)
return {'ok'}
`,
  args: ({ key, value, when }: { key: string; value: string | null; when: "absent" | "present" }) =>
    value === null ? [key, when, "delete", ""] : [key, when, "set", value],
  replies: { ok: null, unmet: null },
});
