// HOLDERS: each sku of a large import given back to its one claimer, a page of ids per call.
import { lexAfter, script } from "../lua.ts";

/** Gives each sku of some ids of a `beginImport` import to the id claiming it. */
export const HOLDERS = script({
  name: "import-holders",
  keys: ["inSkuOf", "inSkus", "inIds"],
  lua: `
--[[ import-holders: for an import whose in:skus has entries that name no holder (an id moved off
  a sku that others still claimed), before its commit; the import claims no sku twice (commit
  checked its claims first), so each sku of in:sku-of is given to its one claimer, and in:skus
  then holds what the site's skus hash will. Walks the id index a page per call.
  ARGV[1] ttl of the import's keys (ms)  ARGV[2] where the page starts, as ZRANGEBYLEX takes it
  ("-", or "(<id>" after <id>: see lexAfter)  ARGV[3] most ids
  Returns {"evicted"} when an id has lost its sku; else {"ok", ids seen, the last one or ""}. ]]
local ids = redis.call('ZRANGEBYLEX', K.inIds, ARGV[2], '+', 'LIMIT', 0, tonumber(ARGV[3]))
if #ids == 0 then return {'ok', 0, ''} end
local skus, bySku = hmget(K.inSkuOf, ids), {}
for i = 1, #ids do
  if not skus[i] then return {'evicted'} end
  bySku[#bySku + 1] = skus[i]
  bySku[#bySku + 1] = ids[i]
end
bulk('HSET', K.inSkus, bySku)
for _, k in ipairs({K.inSkuOf, K.inSkus, K.inIds}) do redis.call('PEXPIRE', k, ARGV[1]) end
return {'ok', #ids, ids[#ids]}
`,
  args: ({ ttlMs, after, limit }: { ttlMs: number; after: string | undefined; limit: number }) => [
    ttlMs,
    lexAfter(after),
    limit,
  ],
  replies: {
    evicted: null,
    ok: (reply) => ({ seen: reply.int(0), last: reply.text(1) }),
  },
});
