// USAGE_COUNT: an amount added to one usage counter, which ends a while after its first add.
import { script } from "../lua.ts";

/** INCRBY, and the counter's expiry set when this add created it; answers the total. */
export const USAGE_COUNT = script({
  name: "usage-count",
  keys: ["usageCounter"],
  lua: `
--[[ usage-count: ARGV[1] the amount  ARGV[2] the counter's life (ms). Returns {"ok", total}.
  A counter without an expiry was created by this add (the script is atomic, and only it writes
  counters): the expiry is set then, and never moved by a later add. ]]
local total = redis.call('INCRBY', K.usageCounter, ARGV[1])
if redis.call('PTTL', K.usageCounter) == -1 then redis.call('PEXPIRE', K.usageCounter, ARGV[2]) end
return {'ok', total}
`,
  args: ({ amount, ttlMs }: { amount: number; ttlMs: number }) => [amount, ttlMs],
  replies: { ok: (reply) => ({ total: reply.int(0) }) },
});
