// KEY_CLAIM: an idempotency key claimed for an import about to run, unless a commit recorded it.
import { script } from "../lua.ts";

/** Claims an idempotency key in one step: its record when a commit wrote one, else busy or claimed. */
export const KEY_CLAIM = script({
  name: "key-claim",
  keys: ["keyRecord", "keyClaim"],
  lua: `
--[[ key-claim: ARGV[1] the claim's token  ARGV[2] its lease (ms)
  Returns {"recorded", record} while the key's record lives (checked first: a claim left behind
  by a process that died after its commit must not hide it); else {"busy"} while another claim
  holds the key; else {"ok"}, the claim taken, which Redis expires after the lease. ]]
local record = redis.call('GET', K.keyRecord)
if record then return {'recorded', record} end
if redis.call('SET', K.keyClaim, ARGV[1], 'NX', 'PX', ARGV[2]) then return {'ok'} end
return {'busy'}
`,
  args: ({ token, leaseMs }: { token: string; leaseMs: number }) => [token, leaseMs],
  replies: {
    recorded: (reply) => ({ record: reply.record(0) }),
    busy: null,
    ok: null,
  },
});
