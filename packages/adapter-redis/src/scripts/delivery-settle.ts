// DELIVERY_SETTLE: a lease ended, its delivery removed or due again.
import { script } from "../lua.ts";

/** How a lease ends: the delivery removed, or (with `next`) due again then with a new value, unleased. */
export interface SettleArgs {
  readonly id: string;
  readonly lease: string;
  readonly next?: { readonly dueAt: number; readonly value: string } | undefined;
}

/** Settles a delivery while `lease` is its lease; changes nothing otherwise. */
export const DELIVERY_SETTLE = script({
  name: "delivery-settle",
  keys: ["deliveriesDue", "deliveriesLeased", "deliveryValues", "deliveryLeases"],
  lua: `
--[[ delivery-settle: ARGV[1] the id  ARGV[2] the lease  ARGV[3] "next" or "remove"  ARGV[4]
  the next dueAt  ARGV[5] the next value. Returns {"ok"}, or {"unmet"} when the delivery's
  lease is not ARGV[2] (another claim took it after it lapsed, or it was settled): nothing
  written. A lease that lapsed and that no claim took since still holds its delivery. ]]
local info = redis.call('HGET', K.deliveryLeases, ARGV[1])
if not info or string.match(info, '^%S+ %S+ (%S+)$') ~= ARGV[2] then return {'unmet'} end
redis.call('ZREM', K.deliveriesLeased, ARGV[1])
redis.call('HDEL', K.deliveryLeases, ARGV[1])
if ARGV[3] == 'next' then
  redis.call('HSET', K.deliveryValues, ARGV[1], ARGV[5])
  redis.call('ZADD', K.deliveriesDue, ARGV[4], ARGV[1])
else
  redis.call('ZREM', K.deliveriesDue, ARGV[1])
  redis.call('HDEL', K.deliveryValues, ARGV[1])
end
return {'ok'}
`,
  args: ({ id, lease, next }: SettleArgs) =>
    next === undefined ? [id, lease, "remove", "", ""] : [id, lease, "next", String(next.dueAt), next.value],
  replies: { ok: null, unmet: null },
});
