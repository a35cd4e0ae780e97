// DELIVERIES_CLAIM: the deliveries due at the caller's time leased, earliest due first.
import { script } from "../lua.ts";

/** What a claim asks: the caller's clock, the lease's end, a token the leases are named from, how many. */
export interface ClaimArgs {
  readonly now: number;
  readonly until: number;
  readonly token: string;
  readonly limit: number;
}

/** Leases up to `limit` due deliveries no live lease holds, in one step; answers each with its lease. */
export const DELIVERIES_CLAIM = script({
  name: "deliveries-claim",
  keys: ["deliveriesDue", "deliveriesLeased", "deliveryValues", "deliveryLeases"],
  lua: `
--[[ deliveries-claim: ARGV[1] now  ARGV[2] the leases' end  ARGV[3] a token, each lease being
  token:n  ARGV[4] the limit. Returns {"ok", id, dueAt, value, lease, ...}, earliest due first.
  Times are the caller's clock, never the server's.
  First, every lease that ends by now goes back into the due set at its dueAt: the claim then
  reads the earliest due first (ZRANGEBYSCORE ... LIMIT), O(log n + limit) besides the leases
  that lapsed, each moved once. A delivery whose lease a caller with a later clock saw lapse
  may still be live on this caller's clock: it is passed over, and stays due. ]]
local now, limit = tonumber(ARGV[1]), tonumber(ARGV[4])
local lapsed = redis.call('ZRANGEBYSCORE', K.deliveriesLeased, '-inf', ARGV[1])
for i = 1, #lapsed do
  local info = redis.call('HGET', K.deliveryLeases, lapsed[i])
  redis.call('ZADD', K.deliveriesDue, string.match(info, '^(%S+)'), lapsed[i])
end
if #lapsed > 0 then redis.call('ZREMRANGEBYSCORE', K.deliveriesLeased, '-inf', ARGV[1]) end
local reply, taken, passed = {'ok'}, 0, 0
while taken < limit do
  local due = redis.call('ZRANGEBYSCORE', K.deliveriesDue, '-inf', ARGV[1], 'WITHSCORES', 'LIMIT', passed, limit - taken)
  if #due == 0 then break end
  for i = 1, #due, 2 do
    local id, dueAt = due[i], due[i + 1]
    local info = redis.call('HGET', K.deliveryLeases, id)
    if info and tonumber(string.match(info, '^%S+ (%S+)')) > now then
      passed = passed + 1
    else
      taken = taken + 1
      local lease = ARGV[3] .. ':' .. taken
      redis.call('ZREM', K.deliveriesDue, id)
      redis.call('ZADD', K.deliveriesLeased, ARGV[2], id)
      redis.call('HSET', K.deliveryLeases, id, dueAt .. ' ' .. ARGV[2] .. ' ' .. lease)
      reply[#reply + 1] = id
      reply[#reply + 1] = dueAt
      reply[#reply + 1] = redis.call('HGET', K.deliveryValues, id)
      reply[#reply + 1] = lease
    end
  end
end
return reply
`,
  args: ({ now, until, token, limit }: ClaimArgs) => [String(now), String(until), token, limit],
  replies: { ok: (reply) => ({ claimed: reply.groups(0, 4) }) },
});
