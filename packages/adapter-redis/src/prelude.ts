// The Lua every script of the store shares, ahead of its own: reading a chunk, the sku checks,
// the writes, the site lock and its state fields, publishing a staging. script() in lua.ts puts it
// in front of each script.
import { INDEXED_FIELD, LOCK_FIELD, MERGING_FIELD } from "./keys.ts";

// A Lua string literal holding `s`, control characters included.
function lua(s: string): string {
  return `'${s.replace(/[\u0000-\u001f'\\]/g, (c) => `\\${c.charCodeAt(0)}`)}'`;
}

// Helpers shared by the scripts. HMGET, HSET and HDEL take whole lists, a few thousand
// arguments per call: Lua's unpack() stops at 8,000 values, and one call per field would cost
// far more than the work it does.
export const PRELUDE = `
local LOCK, MERGING, INDEXED = ${lua(LOCK_FIELD)}, ${lua(MERGING_FIELD)}, ${lua(INDEXED_FIELD)}
local BULK = 4000

local function hmget(key, fields)
  local out, n = {}, #fields
  for i = 1, n, BULK do
    local part = redis.call('HMGET', key, unpack(fields, i, math.min(i + BULK - 1, n)))
    for j = 1, #part do out[i + j - 1] = part[j] end
  end
  return out
end

local function bulk(command, key, args)
  local n, total = #args, 0
  for i = 1, n, BULK do total = total + redis.call(command, key, unpack(args, i, math.min(i + BULK - 1, n))) end
  return total
end

-- The products of a chunk (see chunk.ts), from ARGV[first] on: their count; the JSON array of
-- their encodings, as JSON.stringify writes it; then index, id, sku of each product whose id or
-- sku is escaped in its JSON. One argument per chunk instead of three per product spares the
-- client most of its work, and Lua never decodes JSON. Nor does it rely on the order of a
-- product's fields: inside a JSON string every quote is escaped, and a product holds no nested
-- object, so
-- * the array is cut at each '},{"' followed by a key: '},{"' occurs elsewhere only as a string
--   that ends in '},{' and its closing quote, which ',', ':', ']' or '}' follows, never a key;
-- * an id is the text between the quotes after '"id":"', which occurs once in a product: a
--   quote, then a name, a quote and a colon, opens a key (a string's closing quote is followed
--   by ',', ':', ']' or '}'), and no other key's name ends in '"id'. The same goes for '"sku":"'.
local function products(first)
  local n, s = tonumber(ARGV[first]), ARGV[first + 1]
  local ids, skus, jsons, given = {}, {}, {}, {}
  for k = first + 2, #ARGV, 3 do
    local i = tonumber(ARGV[k])
    given[i], ids[i], skus[i] = true, ARGV[k + 1], ARGV[k + 2]
  end
  local find, sub, byte = string.find, string.sub, string.byte
  if sub(s, 1, 3) ~= '[{"' or sub(s, -2) ~= '}]' then error('malformed chunk') end
  local at, last = 2, #s - 1
  for i = 1, n do
    local stop = find(s, '},{"', at, true)
    while stop do
      local c = byte(s, stop + 4)
      -- Not ',', ':', ']' or '}': a key.
      if c ~= 44 and c ~= 58 and c ~= 93 and c ~= 125 then break end
      stop = find(s, '},{"', stop + 1, true)
    end
    if i == n then
      if stop then error('malformed chunk: more products than counted') end
      stop = last
    elseif not stop then
      error('malformed chunk: fewer products than counted')
    end
    jsons[i] = sub(s, at, stop)
    if not given[i] then
      -- Where encodeProduct puts them, id first and sku next, one match reads both.
      local _, _, id, sku = find(s, '^{"id":"([^"]*)","sku":"([^"]*)"', at)
      if not id then
        local q, r = find(s, '"id":"', at, true), find(s, '"sku":"', at, true)
        if not q or not r or q > stop or r > stop then error('malformed chunk: a product without its id or sku') end
        id, sku = sub(s, q + 6, find(s, '"', q + 6, true) - 1), sub(s, r + 7, find(s, '"', r + 7, true) - 1)
      end
      ids[i], skus[i] = id, sku
    end
    at = stop + 2
  end
  return ids, skus, jsons, n
end

-- Whether a stored product is no longer the base its import was made from (clause 7 of commit):
-- bases[i] is the SHA-1 (hex) of the canonical JSON of ids[i] as the catalog read it, "" when it
-- had no product. A digest travels and waits in 40 bytes where the JSON took 870 on average;
-- hashing the stored JSON costs Redis about 1.5 µs a product.
local function differs(stored, base)
  if not stored then return base ~= '' end
  return redis.sha1hex(stored) ~= base
end

local function stale(productsKey, ids, bases)
  local stored = hmget(productsKey, ids)
  for i = 1, #ids do
    if differs(stored[i], bases[i]) then return true end
  end
  return false
end

-- The bases of a one-call import, from ARGV[first] on: how many, then the id and base of each.
-- Returns whether every one holds, and where the ARGV after them start.
local function basesHold(productsKey, first)
  local m = tonumber(ARGV[first])
  if m == 0 then return true, first + 1 end
  local ids, bases = {}, {}
  for i = 1, m do ids[i], bases[i] = ARGV[first + 2 * i - 1], ARGV[first + 2 * i] end
  return not stale(productsKey, ids, bases), first + 2 * m + 1
end

-- Skus held by a product of the site that is neither the claimant nor in this batch:
-- a flat list of sku, id, heldBy.
local function conflicts(skusKey, ids, skus, n)
  local inbatch = {}
  for i = 1, n do inbatch[ids[i]] = true end
  local holders, out = hmget(skusKey, skus), {}
  for i = 1, n do
    local h = holders[i]
    if h and h ~= ids[i] and not inbatch[h] then
      out[#out + 1] = skus[i]
      out[#out + 1] = ids[i]
      out[#out + 1] = h
    end
  end
  return out
end

-- Counts against the stored products (olds, when the caller read them already); returns
-- created, unchanged and the indexes to write.
local function compare(productsKey, ids, jsons, n, olds)
  olds = olds or hmget(productsKey, ids)
  local created, unchanged, changed = 0, 0, {}
  for i = 1, n do
    local old = olds[i]
    if not old then created = created + 1 end
    if old == jsons[i] then unchanged = unchanged + 1 else changed[i - unchanged] = i end
  end
  return created, unchanged, changed
end

-- Writes products into three hashes (products, skus, sku-of) and the id index beside them. Old
-- skus are freed before new ones are set, and only when they still point at their product, so
-- skus swapped inside a batch, or taken over by a product written earlier, land on their new
-- holders.
-- The first write is an HSET, a command Redis refuses when it is out of memory: a script's
-- first write is where Redis may stop it, so an out-of-memory script stops having written
-- nothing rather than running on past maxmemory.
-- With fresh set, the hashes are known to hold none of the ids (staging), and nothing is freed.
local function write(productsKey, skusKey, skuOfKey, idsKey, ids, skus, jsons, pick, fresh)
  local oldSkus = fresh and {} or hmget(skuOfKey, ids)
  local freeSkus, freeIds = {}, {}
  for _, i in ipairs(pick) do
    local old = oldSkus[i]
    if old and old ~= skus[i] then
      freeSkus[#freeSkus + 1] = old
      freeIds[#freeIds + 1] = ids[i]
    end
  end
  local gone = {}
  if #freeSkus > 0 then
    local holders = hmget(skusKey, freeSkus)
    for i = 1, #freeSkus do
      if holders[i] == freeIds[i] then gone[#gone + 1] = freeSkus[i] end
    end
  end
  -- Filled by a count of their own: Lua 5.1's # searches for the end of a table at each append.
  local byId, bySku, skuOf, index, k = {}, {}, {}, {}, 0
  for _, i in ipairs(pick) do
    local id, sku = ids[i], skus[i]
    k = k + 2
    byId[k - 1], byId[k] = id, jsons[i]
    bySku[k - 1], bySku[k] = sku, id
    skuOf[k - 1], skuOf[k] = id, sku
    index[k - 1], index[k] = 0, id
  end
  bulk('HSET', productsKey, byId)
  bulk('ZADD', idsKey, index)
  bulk('HSET', skuOfKey, skuOf)
  if #gone > 0 then bulk('HDEL', skusKey, gone) end
  bulk('HSET', skusKey, bySku)
end

-- Milliseconds on Redis's clock, so that every process judges lock expiry the same way.
local function now()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

-- The token of the import holding the site, or nil when the lock is free or expired.
local function holder(productsKey)
  local lock = redis.call('HGET', productsKey, LOCK)
  if not lock then return nil end
  local space = string.find(lock, ' ', 1, true)
  if tonumber(string.sub(lock, space + 1)) <= now() then return nil end
  return string.sub(lock, 1, space - 1)
end

-- Takes or renews the lock for ttl ms. An HSET: when Redis is out of memory, it stops the
-- script here, before anything else is written.
local function hold(productsKey, token, ttl)
  redis.call('HSET', productsKey, LOCK, token .. ' ' .. (now() + tonumber(ttl)))
end

-- Publishes a staging (from: its products, skus, sku-of and ids keys, holding n products): in
-- place of the site's four keys (site) when whole, else beside them as the merging keys
-- (merging), which the caller folds in. Replaced keys are UNLINKed first: RENAME over a key would
-- free it inline, on the main thread. A staging published whole carries the mark of a whole
-- index into the site (every write of the staging kept its index). Then the lock is set again
-- (on the new products hash, when whole), and a merge is marked on the site. Returns the
-- outcome: 'ok' (published whole) or 'merging' (published beside the site).
local function publish(from, site, merging, whole, n, token, ttl)
  local into = merging
  if whole then
    redis.call('UNLINK', unpack(site))
    into = site
    if n > 0 then redis.call('HSET', from[3], INDEXED, '1') end
  end
  if n > 0 then
    for i = 1, 4 do
      redis.call('RENAME', from[i], into[i])
      redis.call('PERSIST', into[i])
    end
  end
  hold(site[1], token, ttl)
  if whole then return 'ok' end
  redis.call('HSET', site[1], MERGING, '1')
  return 'merging'
end

-- Whether one-call writes must wait: an import holds the site, or one is still merging.
local function busy(productsKey)
  return holder(productsKey) ~= nil or redis.call('HEXISTS', productsKey, MERGING) == 1
end

-- How many products the site holds (its products hash also holds the state fields).
local function size(productsKey)
  local n = redis.call('HLEN', productsKey)
  local state = redis.call('HMGET', productsKey, LOCK, MERGING)
  if state[1] then n = n - 1 end
  if state[2] then n = n - 1 end
  return n
end

-- Whether a site's id index holds exactly the ids of its products hash. Equal sizes are not
-- enough: a writer that does not keep the index (a version from before it) can remove one
-- product and add another. The site's mark (see INDEXED_FIELD in keys.ts) says that the index
-- was whole when it was set, and every writer since has kept it; an index found otherwise is
-- rebuilt by list, which then sets the mark. With sizes set (the mark cannot be set: Redis is out
-- of memory), equal sizes suffice, as they did before the mark.
local function indexed(productsKey, idsKey, skuOfKey, sizes)
  local n = size(productsKey)
  if redis.call('ZCARD', idsKey) ~= n then return false end
  return n == 0 or sizes or redis.call('HEXISTS', skuOfKey, INDEXED) == 1
end

-- Whether id a comes before id b in the order of their bytes, ZRANGEBYLEX's order. Lua's own
-- string comparison follows the server's locale (Redis sets LC_COLLATE), so it is not used.
local function before(a, b)
  local byte = string.byte
  for k = 1, math.min(#a, #b) do
    local x, y = byte(a, k), byte(b, k)
    if x ~= y then return x < y end
  end
  return #a < #b
end

-- Records an idempotency key (ARGV: the fingerprint as a JSON string, and the retention in ms)
-- with its import's counts; Redis expires it. Called after every check and before any write of
-- the products, so that it is written with them or not at all: Redis refuses a SET for memory
-- only as a script's first write, and then the script writes nothing.
local function remember(recordKey, fingerprint, retain, created, updated, unchanged, deleted)
  local counts = '"created":' .. created .. ',"updated":' .. updated .. ',"unchanged":' .. unchanged
  if deleted ~= nil and deleted ~= '' then counts = counts .. ',"deleted":' .. deleted end
  redis.call('SET', recordKey, '{"fingerprint":' .. fingerprint .. ',"counts":{' .. counts .. '}}', 'PX', retain)
end

-- State fields are never product ids (ids hold no control characters): a key that starts like
-- one matches nothing.
local function reserved(key)
  return string.byte(key, 1) == 0
end
`;
