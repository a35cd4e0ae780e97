// Every Lua script of the store, each with the keys it declares and a header saying what it takes
// and returns. They are kept in one file, past the usual length, so that a change to the key
// layout or to the site's state fields is checked against all of them in one read.
import { script } from "./lua.ts";

/** Applies a batch that fits in one call: checks every sku, then writes, or writes nothing. */
export const UPSERT = script(
  "upsert",
  ["products", "skus", "skuOf", "ids"],
  `
--[[ upsert: a whole batch in one atomic call.
  ARGV[1] "1" for a dry run, else "0"; ARGV[2..] the products (see products())
  Returns {"busy"} while an import holds the site or is merging; {"conflict", sku, id, heldBy,
  ...} listing every conflict, with nothing written; else {"ok", created, unchanged}. ]]
if busy(K.products) then return {'busy'} end
local ids, skus, jsons, n = products(2)
local found = conflicts(K.skus, ids, skus, n)
if #found > 0 then
  table.insert(found, 1, 'conflict')
  return found
end
local created, unchanged, changed = compare(K.products, ids, jsons, n)
if ARGV[1] ~= '1' and #changed > 0 then write(K.products, K.skus, K.skuOf, K.ids, ids, skus, jsons, changed) end
return {'ok', created, unchanged}
`,
);

/** Reads one product by id and/or sku, unless a committed import is still merging. */
export const FIND = script(
  "find",
  ["products", "skus"],
  `
--[[ find: the product whose id is ARGV[1] (unless ARGV[2] is "sku"), else whose sku is ARGV[1]
  (unless ARGV[2] is "id").
  Returns the product's JSON, or nil; {"merging"} while a committed import is still merging
  (then find-merging reads through it). Declares only keys that exist, so that it is served
  while the site's slot migrates. ]]
if redis.call('HEXISTS', K.products, MERGING) == 1 then return {'merging'} end
local key, by = ARGV[1], ARGV[2]
if reserved(key) then return false end
if by ~= 'sku' then
  local json = redis.call('HGET', K.products, key)
  if json then return json end
end
if by ~= 'id' then
  local id = redis.call('HGET', K.skus, key)
  if id then return redis.call('HGET', K.products, id) end
end
return false
`,
);

/** FIND through a committed import that is still merging. */
export const FIND_MERGING = script(
  "find-merging",
  ["products", "skus", "mergingProducts", "mergingSkus"],
  `
--[[ find-merging: as find, for a site with a committed import still merging, which lies on
  top of the site: its products win, and a site sku whose holder is merging was freed by the
  import, unless the import gives it to someone.
  Returns the product's JSON, or nil. ]]
local key, by = ARGV[1], ARGV[2]
if reserved(key) then return false end
if by ~= 'sku' then
  local json = redis.call('HGET', K.mergingProducts, key) or redis.call('HGET', K.products, key)
  if json then return json end
end
if by ~= 'id' then
  local id = redis.call('HGET', K.mergingSkus, key)
  if id then return redis.call('HGET', K.mergingProducts, id) end
  id = redis.call('HGET', K.skus, key)
  if id and redis.call('HEXISTS', K.mergingProducts, id) == 0 then return redis.call('HGET', K.products, id) end
end
return false
`,
);

/** A page of the site's products in id order, unless a committed import is still merging. */
export const LIST = script(
  "list",
  ["products", "ids"],
  `
--[[ list: reads only. A page of the site's products in the order of their ids' bytes.
  ARGV[1] where the page starts, as ZRANGEBYLEX takes it: "-" from the first id, "(<id>" after
  <id>  ARGV[2] most products
  Returns the products' JSON in id order; {"merging"} while a committed import is still merging
  (then list-merging reads through it); {"unindexed"} when the id index does not hold exactly
  the site's ids (a site written before the index existed: the caller rebuilds it). Declares
  only keys that exist whenever the site holds products, so that it is served while the site's
  slot migrates. Costs one ZRANGEBYLEX and one HMGET of ARGV[2] entries, whatever the site's size. ]]
if redis.call('HEXISTS', K.products, MERGING) == 1 then return {'merging'} end
if not indexed(K.products, K.ids) then return {'unindexed'} end
local ids = redis.call('ZRANGEBYLEX', K.ids, ARGV[1], '+', 'LIMIT', 0, tonumber(ARGV[2]))
if #ids == 0 then return {} end
local jsons = hmget(K.products, ids)
for i = 1, #ids do
  if not jsons[i] then return {'unindexed'} end
end
return jsons
`,
);

/** LIST through a committed import that is still merging. */
export const LIST_MERGING = script(
  "list-merging",
  ["products", "ids", "mergingProducts", "mergingIds"],
  `
--[[ list-merging: as list, for a site with a committed import still merging, which lies on top
  of the site (its products win; a merge never deletes). The page is the first ARGV[2] ids of
  the union of both indexes, which lie within the first ARGV[2] of each: two ZRANGEBYLEX, merged.
  Returns the products' JSON in id order, or {"unindexed"}. ]]
if not indexed(K.products, K.ids) or redis.call('ZCARD', K.mergingIds) ~= redis.call('HLEN', K.mergingProducts) then
  return {'unindexed'}
end
local limit = tonumber(ARGV[2])
local site = redis.call('ZRANGEBYLEX', K.ids, ARGV[1], '+', 'LIMIT', 0, limit)
local top = redis.call('ZRANGEBYLEX', K.mergingIds, ARGV[1], '+', 'LIMIT', 0, limit)
-- picked[k] is an id; fromTop[k] whether it is read from the merging hash.
local picked, fromTop, i, j = {}, {}, 1, 1
while #picked < limit and (site[i] or top[j]) do
  local a, b = site[i], top[j]
  local k = #picked + 1
  if b and (not a or a == b or before(b, a)) then
    picked[k], fromTop[k] = b, true
    if a == b then i = i + 1 end
    j = j + 1
  else
    picked[k], fromTop[k] = a, false
    i = i + 1
  end
end
local ofSite, ofTop = {}, {}
for k = 1, #picked do
  if fromTop[k] then ofTop[#ofTop + 1] = picked[k] else ofSite[#ofSite + 1] = picked[k] end
end
local siteJsons, topJsons = hmget(K.products, ofSite), hmget(K.mergingProducts, ofTop)
local out, s, t = {}, 1, 1
for k = 1, #picked do
  local json
  if fromTop[k] then
    json, t = topJsons[t], t + 1
  else
    json, s = siteJsons[s], s + 1
  end
  if not json then return {'unindexed'} end
  out[k] = json
end
return out
`,
);

/** Makes an id index agree with its products hash for some fields: rebuilds an index page by page. */
export const INDEX = script(
  "index",
  ["products", "ids"],
  `
--[[ index: for each field given, adds it to the id index when the products hash holds a
  product under it, else removes it from the index. Run over every field of the products hash
  (HSCAN) and every member of the index (ZSCAN), it rebuilds the index of a site written before
  the index existed, or by an older version of the store, while writers keep it as they always
  do. Also run on the merging hashes (their keys passed as products and ids).
  ARGV[1..] fields (a page of a scan). Returns how many fields it looked at. ]]
local asked = {}
for i = 1, #ARGV do asked[i] = ARGV[i] end
if #asked == 0 then return 0 end
local found, add, gone = hmget(K.products, asked), {}, {}
for i = 1, #asked do
  -- State fields are the site's, never products.
  if found[i] and not reserved(asked[i]) then
    add[#add + 1] = 0
    add[#add + 1] = asked[i]
  else
    gone[#gone + 1] = asked[i]
  end
end
if #add > 0 then bulk('ZADD', K.ids, add) end
if #gone > 0 then bulk('ZREM', K.ids, gone) end
return #asked
`,
);

/** Removes what FIND would return and frees its sku, in one atomic call. */
export const REMOVE = script(
  "remove",
  ["products", "skus", "skuOf", "ids"],
  `
--[[ remove: deletes the product whose id, else sku, is ARGV[1], and frees its sku.
  ARGV[1] key  ARGV[2] "id", "sku" or "" (id, then sku)
  Returns {"busy"} while an import holds the site or is merging; {"ok", json} with the removed
  product, or {"ok"} when nothing matched. ]]
if busy(K.products) then return {'busy'} end
local key, by = ARGV[1], ARGV[2]
if reserved(key) then return {'ok'} end
local id = false
if by ~= 'sku' and redis.call('HEXISTS', K.products, key) == 1 then
  id = key
elseif by ~= 'id' then
  id = redis.call('HGET', K.skus, key)
end
if not id then return {'ok'} end
local json = redis.call('HGET', K.products, id)
if not json then return {'ok'} end
local sku = redis.call('HGET', K.skuOf, id)
redis.call('HDEL', K.products, id)
redis.call('HDEL', K.skuOf, id)
redis.call('ZREM', K.ids, id)
if sku and redis.call('HGET', K.skus, sku) == id then redis.call('HDEL', K.skus, sku) end
return {'ok', json}
`,
);

/** Takes the site lock for an import, and says whether a committed import is still merging. */
export const ACQUIRE = script(
  "acquire",
  ["products"],
  `
--[[ acquire: takes the lock unless another token holds it and it has not expired. Taking it
  again with the same token renews it.
  ARGV[1] token  ARGV[2] ttl (ms)
  Returns {1 if taken else 0, 1 if an import is merging else 0} ]]
local h = holder(K.products)
if h and h ~= ARGV[1] then return {0, 0} end
hold(K.products, ARGV[1], ARGV[2])
return {1, redis.call('HEXISTS', K.products, MERGING)}
`,
);

/** Gives the lock back if it is still the token's (expired or not). */
export const RELEASE = script(
  "release",
  ["products"],
  `
--[[ release: ARGV[1] token. Returns 1 when the lock was the token's, else 0. Running it twice
  is harmless: the second run finds the lock gone or another's. ]]
local lock = redis.call('HGET', K.products, LOCK)
if lock and string.sub(lock, 1, #ARGV[1] + 1) == ARGV[1] .. ' ' then
  redis.call('HDEL', K.products, LOCK)
  return 1
end
return 0
`,
);

/** How many products the site holds, read under the lock (what a replace deletes is counted from it). */
export const SITE_SIZE = script(
  "site-size",
  ["products"],
  `
--[[ site-size: ARGV[1] lock token  ARGV[2] lock ttl (ms)
  Returns -1 when the lock is not ours; else how many products the site holds (renewing the lock). ]]
if holder(K.products) ~= ARGV[1] then return -1 end
hold(K.products, ARGV[1], ARGV[2])
return size(K.products)
`,
);

/** Checks one chunk of an import against the site and stages what it would change. */
export const STAGE = script(
  "stage",
  ["products", "skus", "stageProducts", "stageSkus", "stageSkuOf", "stageIds"],
  `
--[[ stage: one chunk of an import, under the site lock.
  ARGV[1] lock token  ARGV[2] lock ttl (ms)  ARGV[3] stage ttl (ms)  ARGV[4] "1" to stage,
  "0" for a dry run  ARGV[5] "1" when the batch replaces the site (every sku of the site that
  the batch does not take is freed, so none is a conflict), else "0"; ARGV[6..] the chunk's
  products (see products())
  Returns {"lost"} when the lock is not ours; else {"ok", created, unchanged, site size, sku, id,
  heldBy, ...} where each triple is a sku held outside this chunk (the caller drops holders that
  are in the batch). Stages only the products that would change; the site is never written. ]]
if holder(K.products) ~= ARGV[1] then return {'lost'} end
hold(K.products, ARGV[1], ARGV[2])
local ids, skus, jsons, n = products(6)
local out = ARGV[5] == '1' and {} or conflicts(K.skus, ids, skus, n)
local created, unchanged, changed = compare(K.products, ids, jsons, n)
table.insert(out, 1, size(K.products))
table.insert(out, 1, unchanged)
table.insert(out, 1, created)
table.insert(out, 1, 'ok')
if ARGV[4] == '1' then
  if #changed > 0 then
    write(K.stageProducts, K.stageSkus, K.stageSkuOf, K.stageIds, ids, skus, jsons, changed, true)
  end
  -- Every chunk renews all staging keys, so they outlive the lock, which every chunk renews too.
  for _, k in ipairs({K.stageProducts, K.stageSkus, K.stageSkuOf, K.stageIds}) do redis.call('PEXPIRE', k, ARGV[3]) end
end
return out
`,
);

/** Copies into a staging the site's products that a batch replacing the whole site keeps as they are. */
export const BACKFILL = script(
  "backfill",
  ["products", "skuOf", "stageProducts", "stageSkus", "stageSkuOf", "stageIds"],
  `
--[[ backfill: for a batch that is to replace the site, copies the products it leaves unchanged
  into the staging, which then holds the site's whole next state. Under the site lock.
  ARGV[1] lock token  ARGV[2] lock ttl (ms)  ARGV[3] stage ttl (ms); then ids of the batch
  (those already staged are skipped)
  Returns -1 when the lock is not ours; else how many products it copied. ]]
if holder(K.products) ~= ARGV[1] then return -1 end
hold(K.products, ARGV[1], ARGV[2])
local asked = {}
for i = 4, #ARGV do asked[#asked + 1] = ARGV[i] end
local staged, ids = hmget(K.stageSkuOf, asked), {}
for i = 1, #asked do
  if not staged[i] then ids[#ids + 1] = asked[i] end
end
local copied = 0
if #ids > 0 then
  local jsons, skus, pick = hmget(K.products, ids), hmget(K.skuOf, ids), {}
  for i = 1, #ids do
    if jsons[i] and skus[i] then pick[#pick + 1] = i end
  end
  copied = #pick
  if copied > 0 then write(K.stageProducts, K.stageSkus, K.stageSkuOf, K.stageIds, ids, skus, jsons, pick, true) end
end
for _, k in ipairs({K.stageProducts, K.stageSkus, K.stageSkuOf, K.stageIds}) do redis.call('PEXPIRE', k, ARGV[3]) end
return copied
`,
);

/** Makes a staged import visible in one step, without copying it. */
export const COMMIT = script(
  "commit",
  [
    "products",
    "skus",
    "skuOf",
    "ids",
    "stageProducts",
    "stageSkus",
    "stageSkuOf",
    "stageIds",
    "mergingProducts",
    "mergingSkus",
    "mergingSkuOf",
    "mergingIds",
  ],
  `
--[[ commit: publishes a staged import, under the site lock. O(1): four RENAMEs (and UNLINKs,
  which free replaced keys off the main thread, where RENAME over a key would free it inline).
  ARGV[1] lock token  ARGV[2] lock ttl (ms)  ARGV[3] how many products were staged
  ARGV[4] "" to add the staging to the site, or the site's size when the staging holds the
  site's whole next state (it replaces the site; with nothing staged, the site is emptied)
  Returns "lost" (the lock is not ours, or the site is not as judged: nothing published),
  "evicted" (a staging key lost entries or vanished, as eviction does: nothing published),
  "done" (published into an empty site, or in place of the site, or nothing to publish), or
  "merge" (published as the merging keys; the caller folds them in). ]]
if holder(K.products) ~= ARGV[1] then return 'lost' end
local n = tonumber(ARGV[3])
local replace = ARGV[4] ~= ''
if n == 0 and not replace then return 'done' end
-- Each staged product has one entry in each staging key (the skus of a batch are distinct).
for _, k in ipairs({K.stageProducts, K.stageSkus, K.stageSkuOf}) do
  if redis.call('HLEN', k) ~= n then return 'evicted' end
end
if redis.call('ZCARD', K.stageIds) ~= n then return 'evicted' end
if redis.call('HEXISTS', K.products, MERGING) == 1 then return 'lost' end
local sites = size(K.products)
if replace then
  if sites ~= tonumber(ARGV[4]) then return 'lost' end
  sites = 0
end
local into = {K.mergingProducts, K.mergingSkus, K.mergingSkuOf, K.mergingIds}
if sites == 0 then
  -- The site's keys are replaced whole; the lock is set again on the new products hash.
  redis.call('UNLINK', K.products, K.skus, K.skuOf, K.ids)
  into = {K.products, K.skus, K.skuOf, K.ids}
end
if n > 0 then
  local from = {K.stageProducts, K.stageSkus, K.stageSkuOf, K.stageIds}
  for i = 1, 4 do
    redis.call('RENAME', from[i], into[i])
    redis.call('PERSIST', into[i])
  end
end
hold(K.products, ARGV[1], ARGV[2])
if sites == 0 then return 'done' end
redis.call('HSET', K.products, MERGING, '1')
return 'merge'
`,
);

/** Folds part of a committed import into the site; readers see the same catalog before and after. */
export const MERGE = script(
  "merge",
  ["products", "skus", "skuOf", "ids", "mergingProducts", "mergingSkus", "mergingSkuOf", "mergingIds"],
  `
--[[ merge: moves products from the merging hashes into the site, under the site lock.
  ARGV[1] lock token  ARGV[2] lock ttl (ms); then ids (those not merging are skipped)
  Returns -1 when the lock is not ours; else how many products are still merging. When none
  are, the site's merging mark is removed. ]]
if holder(K.products) ~= ARGV[1] then return -1 end
hold(K.products, ARGV[1], ARGV[2])
local asked = {}
for i = 3, #ARGV do asked[#asked + 1] = ARGV[i] end
local ids, skus, jsons, pick = {}, {}, {}, {}
if #asked > 0 then
  local found, skuOf = hmget(K.mergingProducts, asked), hmget(K.mergingSkuOf, asked)
  for i = 1, #asked do
    if found[i] then
      local n = #ids + 1
      ids[n], skus[n], jsons[n], pick[n] = asked[i], skuOf[i], found[i], n
    end
  end
end
if #ids > 0 then
  write(K.products, K.skus, K.skuOf, K.ids, ids, skus, jsons, pick)
  bulk('HDEL', K.mergingProducts, ids)
  bulk('HDEL', K.mergingSkuOf, ids)
  bulk('HDEL', K.mergingSkus, skus)
  bulk('ZREM', K.mergingIds, ids)
end
local left = redis.call('HLEN', K.mergingProducts)
if left == 0 then
  redis.call('UNLINK', K.mergingProducts, K.mergingSkus, K.mergingSkuOf, K.mergingIds)
  redis.call('HDEL', K.products, MERGING)
end
return left
`,
);

/** Stages one chunk of a `beginImport` import, out of sight, keeping only what commit needs. */
export const ADD = script(
  "import-add",
  ["inProducts", "inSkuOf", "inPositions", "inClaims"],
  `
--[[ import-add: one chunk of an import begun with beginImport. Takes no lock and reads nothing
  of the site: skus are judged at commit, on the state after the import. An id given again
  replaces its product (the later wins) and moves its claim to its new sku.
  ARGV[1] ttl of the import's keys (ms)  ARGV[2] the chunk's positions, separated by spaces, in
  the order of its products; ARGV[3..] the products (see products()), whose ids are distinct
  Returns {ids new to the import, change in how many skus are claimed, change in how many skus
  more than one id claims}: the client sums them, and commit checks the first two against the
  hashes (eviction) and reads claimers only when the third is above 0. ]]
local ids, skus, jsons, n = products(3)
local positions = {}
for p in string.gmatch(ARGV[2], '%S+') do positions[#positions + 1] = p end
if #positions ~= n then error('positions do not match the products') end
local olds, spans = hmget(K.inSkuOf, ids), hmget(K.inPositions, ids)
local byId, skuOf, pos, fresh = {}, {}, {}, 0
-- The change in claims of each sku this chunk touches, summed before the hash is read once.
local delta, touched = {}, {}
local function claim(sku, by)
  if not delta[sku] then
    delta[sku] = 0
    touched[#touched + 1] = sku
  end
  delta[sku] = delta[sku] + by
end
for i = 1, n do
  local old = olds[i]
  if not old then
    fresh = fresh + 1
    claim(skus[i], 1)
  elseif old ~= skus[i] then
    claim(old, -1)
    claim(skus[i], 1)
  end
  local first = spans[i] and string.match(spans[i], '^%S+') or positions[i]
  local k = 2 * i
  byId[k - 1], byId[k] = ids[i], jsons[i]
  skuOf[k - 1], skuOf[k] = ids[i], skus[i]
  pos[k - 1], pos[k] = ids[i], first .. ' ' .. positions[i]
end
-- The first write is an HSET (see write()).
bulk('HSET', K.inProducts, byId)
bulk('HSET', K.inSkuOf, skuOf)
bulk('HSET', K.inPositions, pos)
local claimed, contested = 0, 0
if #touched > 0 then
  local before, set, gone = hmget(K.inClaims, touched), {}, {}
  for j, sku in ipairs(touched) do
    local b = tonumber(before[j] or 0)
    local a = b + delta[sku]
    if a > 0 and a ~= b then
      set[#set + 1] = sku
      set[#set + 1] = a
    elseif a <= 0 and b > 0 then
      gone[#gone + 1] = sku
    end
    claimed = claimed + (a > 0 and 1 or 0) - (b > 0 and 1 or 0)
    contested = contested + (a > 1 and 1 or 0) - (b > 1 and 1 or 0)
  end
  if #set > 0 then bulk('HSET', K.inClaims, set) end
  if #gone > 0 then bulk('HDEL', K.inClaims, gone) end
end
for _, k in ipairs({K.inProducts, K.inSkuOf, K.inPositions, K.inClaims}) do redis.call('PEXPIRE', k, ARGV[1]) end
return {fresh, claimed, contested}
`,
);

/** How many entries each hash of a `beginImport` import holds: how commit sees eviction. */
export const INCOMING_SIZES = script(
  "import-sizes",
  ["inProducts", "inSkuOf", "inPositions", "inClaims"],
  `
--[[ import-sizes: Returns {HLEN in:products, in:sku-of, in:pos, in:claims}. Eviction takes whole
  keys, so a hash that lost any entry is smaller than what the import's adds counted. ]]
local out = {}
for _, k in ipairs({K.inProducts, K.inSkuOf, K.inPositions, K.inClaims}) do out[#out + 1] = redis.call('HLEN', k) end
return out
`,
);

/** Of some ids of a `beginImport` import, those whose sku another of its ids claims too. */
export const CLAIMERS = script(
  "import-claimers",
  ["inSkuOf", "inPositions", "inClaims"],
  `
--[[ import-claimers: reads only.
  ARGV[1..] ids of the import (a page of an HSCAN of in:sku-of)
  Returns a flat list of id, sku, first position, last position, for each id whose sku more
  than one id of the import claims. Ids no longer staged (evicted) are skipped: commit finds
  the loss by counting. ]]
local asked = {}
for i = 1, #ARGV do asked[i] = ARGV[i] end
local found, ids, skus = hmget(K.inSkuOf, asked), {}, {}
for i = 1, #asked do
  if found[i] then
    ids[#ids + 1] = asked[i]
    skus[#skus + 1] = found[i]
  end
end
local out = {}
if #ids == 0 then return out end
local claims, pick = hmget(K.inClaims, skus), {}
for i = 1, #ids do
  if tonumber(claims[i] or 0) > 1 then pick[#pick + 1] = i end
end
if #pick == 0 then return out end
local picked = {}
for j, i in ipairs(pick) do picked[j] = ids[i] end
local spans = hmget(K.inPositions, picked)
for j, i in ipairs(pick) do
  local first, last = string.match(spans[j] or '', '^(%S+) (%S+)$')
  for _, v in ipairs({ids[i], skus[i], first or '', last or ''}) do out[#out + 1] = v end
end
return out
`,
);

/** Judges some ids of a `beginImport` import against the site and stages what would change. */
export const CHECK = script(
  "import-check",
  [
    "products",
    "skus",
    "stageProducts",
    "stageSkus",
    "stageSkuOf",
    "stageIds",
    "inProducts",
    "inSkuOf",
    "inPositions",
    "inClaims",
  ],
  `
--[[ import-check: part of a beginImport import's commit, under the site lock; the import holds
  no sku twice (commit checked its claims first). Each id judged is moved out of in:products, so
  that an id the scan returns twice is judged once.
  ARGV[1] lock token  ARGV[2] lock ttl (ms)  ARGV[3] stage ttl (ms)  ARGV[4] ttl of the import's
  keys (ms)  ARGV[5] "1" to stage the products that would change, "0" not to (a dry run, or a
  conflict was found)  ARGV[6] "1" when the import replaces the site (no sku of the site is then
  a conflict: every one the import does not take is freed), else "0"; ARGV[7..] ids of the
  import (a page of an HSCAN of in:sku-of)
  Returns {"lost"} when the lock is not ours; {"evicted"} when an id has lost its sku; else
  {"ok", judged, created, unchanged, staged, sku, id, heldBy, first position, last position, ...}
  where each quintuple is a conflict: a product of the site that the import does not give a new
  sku holds the sku. ]]
if holder(K.products) ~= ARGV[1] then return {'lost'} end
hold(K.products, ARGV[1], ARGV[2])
local asked, seen = {}, {}
for i = 7, #ARGV do
  if not seen[ARGV[i]] then
    seen[ARGV[i]] = true
    asked[#asked + 1] = ARGV[i]
  end
end
local found, ids, jsons = hmget(K.inProducts, asked), {}, {}
for i = 1, #asked do
  if found[i] then
    ids[#ids + 1] = asked[i]
    jsons[#jsons + 1] = found[i]
  end
end
local n = #ids
if n == 0 then return {'ok', 0, 0, 0, 0} end
local skus = hmget(K.inSkuOf, ids)
for i = 1, n do
  if not skus[i] then return {'evicted'} end
end
local out = {'ok', n}
-- A holder the import stages gets its own new sku (it claims none twice), so only others conflict.
local holders, others, at = ARGV[6] == '1' and {} or hmget(K.skus, skus), {}, {}
for i = 1, n do
  local h = holders[i]
  if h and h ~= ids[i] then
    others[#others + 1] = h
    at[#at + 1] = i
  end
end
local lone = {}
if #others > 0 then
  local staged = hmget(K.inSkuOf, others)
  for j = 1, #others do
    if not staged[j] then lone[#lone + 1] = j end
  end
end
local conflicts = {}
if #lone > 0 then
  local who = {}
  for k, j in ipairs(lone) do who[k] = ids[at[j]] end
  local spans = hmget(K.inPositions, who)
  for k, j in ipairs(lone) do
    local first, last = string.match(spans[k] or '', '^(%S+) (%S+)$')
    for _, v in ipairs({skus[at[j]], who[k], others[j], first or '', last or ''}) do conflicts[#conflicts + 1] = v end
  end
end
local created, unchanged, changed = compare(K.products, ids, jsons, n)
local staged = 0
if ARGV[5] == '1' and #changed > 0 then
  write(K.stageProducts, K.stageSkus, K.stageSkuOf, K.stageIds, ids, skus, jsons, changed, true)
  staged = #changed
  for _, k in ipairs({K.stageProducts, K.stageSkus, K.stageSkuOf, K.stageIds}) do redis.call('PEXPIRE', k, ARGV[3]) end
end
bulk('HDEL', K.inProducts, ids)
for _, k in ipairs({K.inProducts, K.inSkuOf, K.inPositions, K.inClaims}) do redis.call('PEXPIRE', k, ARGV[4]) end
out[3], out[4], out[5] = created, unchanged, staged
for _, v in ipairs(conflicts) do out[#out + 1] = v end
return out
`,
);
