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
  ["products", "ids", "skuOf"],
  `
--[[ list: reads only. A page of the site's products in the order of their ids' bytes.
  ARGV[1] where the page starts, as ZRANGEBYLEX takes it: "-" from the first id, "(<id>" after
  <id>  ARGV[2] most products  ARGV[3] "1" when equal sizes must do (see indexed()), else "0"
  Returns the products' JSON in id order; {"merging"} while a committed import is still merging
  (then list-merging reads through it); {"unindexed"} when the id index is not known to hold
  exactly the site's ids (see indexed(): the caller rebuilds it). Declares only keys that exist
  whenever the site holds products, so that it is served while the site's slot migrates. Costs
  one ZRANGEBYLEX and one HMGET of ARGV[2] entries, whatever the site's size. ]]
if redis.call('HEXISTS', K.products, MERGING) == 1 then return {'merging'} end
if not indexed(K.products, K.ids, K.skuOf, ARGV[3] == '1') then return {'unindexed'} end
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
  ["products", "ids", "skuOf", "mergingProducts", "mergingIds"],
  `
--[[ list-merging: as list, for a site with a committed import still merging, which lies on top
  of the site (its products win; a merge never deletes). The page is the first ARGV[2] ids of
  the union of both indexes, which lie within the first ARGV[2] of each: two ZRANGEBYLEX, merged.
  Returns the products' JSON in id order, or {"unindexed"}. ]]
if not indexed(K.products, K.ids, K.skuOf, ARGV[3] == '1') or redis.call('ZCARD', K.mergingIds) ~= redis.call('HLEN', K.mergingProducts) then
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

/** Marks a site's id index as whole once a rebuild has walked the site. */
export const INDEXED = script(
  "indexed",
  ["products", "skuOf", "ids"],
  `
--[[ indexed: after index has been run over every field of the site's products hash and every
  member of its index. Sets the site's mark of a whole index (see INDEXED_FIELD in keys.ts) when
  the index holds as many ids as the site holds products (otherwise a writer that does not keep
  the index wrote during the rebuild, and the next list rebuilds again). An empty site needs no
  mark. Returns 1 when marked, else 0. ]]
local n = size(K.products)
if n == 0 or redis.call('ZCARD', K.ids) ~= n then return 0 end
redis.call('HSET', K.skuOf, INDEXED, '1')
return 1
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
  product, or {"ok"} when nothing matched. The last product takes the site's index mark with it,
  so that an empty site leaves no key behind. ]]
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
if size(K.products) == 0 then redis.call('HDEL', K.skuOf, INDEXED) end
return {'ok', json}
`,
);

/** REMOVE through a committed import that is still merging, without the lock. */
export const REMOVE_MERGING = script(
  "remove-merging",
  ["products", "skus", "skuOf", "ids", "mergingProducts", "mergingSkus", "mergingSkuOf", "mergingIds"],
  `
--[[ remove-merging: as remove, for a site with a committed import still merging, when its merge
  cannot be finished first: that takes the lock, an HSET, which Redis refuses when out of memory,
  and a remove is how memory is freed. Deletes the product find-merging finds from both layers
  (the merging keys, which lie on top, and the site's), freeing its sku in each, so that find,
  list and the merge all see it gone; a merge left with nothing to fold in is ended. Writes only
  with HDEL, ZREM and UNLINK, which Redis allows when out of memory.
  ARGV[1] key  ARGV[2] "id", "sku" or "" (id, then sku)
  Returns {"busy"} while an import holds the site; {"ok", json} with the removed product (as
  find returned it), or {"ok"} when nothing matched. ]]
if holder(K.products) then return {'busy'} end
local key, by = ARGV[1], ARGV[2]
if reserved(key) then return {'ok'} end
local id, json = false, false
if by ~= 'sku' then
  json = redis.call('HGET', K.mergingProducts, key) or redis.call('HGET', K.products, key)
  if json then id = key end
end
if not id and by ~= 'id' then
  local held = redis.call('HGET', K.mergingSkus, key)
  if held then
    json = redis.call('HGET', K.mergingProducts, held)
  else
    held = redis.call('HGET', K.skus, key)
    if held and redis.call('HEXISTS', K.mergingProducts, held) == 0 then json = redis.call('HGET', K.products, held) end
  end
  if json then id = held end
end
if not id then return {'ok'} end
for _, layer in ipairs({
  {K.products, K.skus, K.skuOf, K.ids},
  {K.mergingProducts, K.mergingSkus, K.mergingSkuOf, K.mergingIds},
}) do
  local sku = redis.call('HGET', layer[3], id)
  redis.call('HDEL', layer[1], id)
  redis.call('HDEL', layer[3], id)
  redis.call('ZREM', layer[4], id)
  if sku and redis.call('HGET', layer[2], sku) == id then redis.call('HDEL', layer[2], sku) end
end
if redis.call('HLEN', K.mergingProducts) == 0 then
  redis.call('UNLINK', K.mergingProducts, K.mergingSkus, K.mergingSkuOf, K.mergingIds)
  redis.call('HDEL', K.products, MERGING)
end
if size(K.products) == 0 then redis.call('HDEL', K.skuOf, INDEXED) end
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
return publish(
  {K.stageProducts, K.stageSkus, K.stageSkuOf, K.stageIds},
  {K.products, K.skus, K.skuOf, K.ids},
  {K.mergingProducts, K.mergingSkus, K.mergingSkuOf, K.mergingIds},
  sites == 0, n, ARGV[1], ARGV[2])
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

/** Stages one chunk of a `beginImport` import, out of sight, in the shape of a site. */
export const ADD = script(
  "import-add",
  ["inProducts", "inSkuOf", "inSkus", "inIds", "inPositions"],
  `
--[[ import-add: one chunk of an import begun with beginImport. Takes no lock and reads nothing
  of the site: skus are judged at commit, on the state after the import. Keeps the import in the
  shape of a site (see IncomingKeys in keys.ts), so that a commit may rename its keys into the
  site's: an id given again replaces its product (the later wins) and moves its claim to its new
  sku. in:skus gives each sku to the id that claimed it while no other did; a sku that several
  ids claim holds "\\0<how many> <that id>", and "" stands for that id once it moved off while
  others still claimed the sku (the commit then gives each sku to its claimer again). The
  positions are kept as they came, with the ids, one entry of in:pos per chunk: only a
  conflict needs them.
  ARGV[1] ttl of the import's keys (ms)  ARGV[2] the chunk's number in the import  ARGV[3] the
  chunk's positions, separated by spaces, in the order of its products; ARGV[4..] the products
  (see products()), whose ids are distinct
  Returns what the chunk changed, for the client to sum: {ids new to the import, skus claimed,
  skus more than one id claims, skus one id claims but whose holder is unknown}. ]]
local ids, skus, jsons, n = products(4)
local byId, skuOf = {}, {}
for i = 1, n do
  local k = 2 * i
  byId[k - 1], byId[k] = ids[i], jsons[i]
  skuOf[k - 1], skuOf[k] = ids[i], skus[i]
end
-- The first write is an HSET (see write()). It says how many ids are new: when all of them
-- are (the usual chunk), none has an old sku to read.
local added = 0
for i = 1, #byId, BULK do
  added = added + redis.call('HSET', K.inProducts, unpack(byId, i, math.min(i + BULK - 1, #byId)))
end
local olds = added == n and {} or hmget(K.inSkuOf, ids)
local fresh = {}
for i = 1, n do
  if not olds[i] then fresh[#fresh + 1] = i end
end
local set, gone, claimed, contested, unheld = {}, {}, 0, 0, 0
-- The usual chunk: new ids claiming distinct skus that no id claims yet, each taking its own.
local plain = #fresh == n
if plain then
  local before, seen = hmget(K.inSkus, skus), {}
  for i = 1, n do
    local sku = skus[i]
    if before[i] or seen[sku] then
      plain = false
      break
    end
    seen[sku] = true
    set[2 * i - 1], set[2 * i] = sku, ids[i]
  end
  if plain then claimed = n else set = {} end
end
if not plain then
  -- The claims this chunk makes, in order (i: ids[i] claims skus[i]; -i: ids[i] moves there
  -- from its old sku), on the skus they touch, each read once.
  local moves, touched, seen = {}, {}, {}
  local function touch(sku)
    if not seen[sku] then
      seen[sku] = true
      touched[#touched + 1] = sku
    end
  end
  for i = 1, n do
    local old = olds[i]
    if not old or old ~= skus[i] then
      if old then touch(old) end
      touch(skus[i])
      moves[#moves + 1] = old and -i or i
    end
  end
  local before = hmget(K.inSkus, touched)
  local count, holder, count0, holder0 = {}, {}, {}, {}
  for j, sku in ipairs(touched) do
    local v, c, h = before[j], 0, false
    if v and string.byte(v, 1) == 0 then
      local space = string.find(v, ' ', 2, true)
      c, h = tonumber(string.sub(v, 2, space - 1)), string.sub(v, space + 1)
    elseif v then
      c, h = 1, v
    end
    count[sku], holder[sku], count0[j], holder0[j] = c, h, c, h
  end
  for _, m in ipairs(moves) do
    local i = m > 0 and m or -m
    if m < 0 then
      local old = olds[i]
      local c = count[old]
      -- A claim that is not counted was lost to eviction: commit finds it by counting.
      if c > 0 then
        count[old] = c - 1
        if c == 1 then
          holder[old] = false
        elseif holder[old] == ids[i] then
          holder[old] = ''
        end
      end
    end
    local sku = skus[i]
    if count[sku] == 0 then holder[sku] = ids[i] end
    count[sku] = count[sku] + 1
  end
  local function unknown(c, h) return (c == 1 and h == '') and 1 or 0 end
  for j, sku in ipairs(touched) do
    local c, h, c0 = count[sku], holder[sku], count0[j]
    local v = false
    if c == 1 then v = h elseif c > 1 then v = string.char(0) .. c .. ' ' .. h end
    if v ~= before[j] then
      if v then
        set[#set + 1] = sku
        set[#set + 1] = v
      else
        gone[#gone + 1] = sku
      end
    end
    claimed = claimed + (c > 0 and 1 or 0) - (c0 > 0 and 1 or 0)
    contested = contested + (c > 1 and 1 or 0) - (c0 > 1 and 1 or 0)
    unheld = unheld + unknown(c, h) - unknown(c0, holder0[j])
  end
end
local index = {}
for _, i in ipairs(fresh) do
  index[#index + 1] = 0
  index[#index + 1] = ids[i]
end
bulk('HSET', K.inSkuOf, skuOf)
if #index > 0 then bulk('ZADD', K.inIds, index) end
if #set > 0 then bulk('HSET', K.inSkus, set) end
if #gone > 0 then bulk('HDEL', K.inSkus, gone) end
-- Ids hold no control characters (see keys.ts).
redis.call('HSET', K.inPositions, ARGV[2], ARGV[3] .. '\\n' .. table.concat(ids, '\\n'))
for _, k in ipairs({K.inProducts, K.inSkuOf, K.inSkus, K.inIds, K.inPositions}) do redis.call('PEXPIRE', k, ARGV[1]) end
return {#fresh, claimed, contested, unheld}
`,
);

/** How many entries each key of a `beginImport` import holds: how commit sees eviction. */
export const INCOMING_SIZES = script(
  "import-sizes",
  ["inProducts", "inSkuOf", "inSkus", "inIds", "inPositions"],
  `
--[[ import-sizes: Returns {HLEN in:products, HLEN in:sku-of, HLEN in:skus, ZCARD in:ids, HLEN
  in:pos}. Eviction takes whole keys, so a key that lost any entry is smaller than what the
  import's adds counted. ]]
return {
  redis.call('HLEN', K.inProducts),
  redis.call('HLEN', K.inSkuOf),
  redis.call('HLEN', K.inSkus),
  redis.call('ZCARD', K.inIds),
  redis.call('HLEN', K.inPositions),
}
`,
);

/** Gathers the first and last position of each id of some chunks of a `beginImport` import. */
export const SPANS = script(
  "import-spans",
  ["inPositions", "inSpans"],
  `
--[[ import-spans: for a commit that answers conflicts, which name positions: reads entries of
  in:pos (a chunk's positions and ids, as import-add wrote them) and keeps in in:spans, for each
  id, "<first> <last>": the smallest and largest position it was given (positions increase
  over the import). Reading a chunk twice changes nothing. Eviction takes whole keys: every call
  but the first finds in:spans, or the ids of earlier chunks are lost (a lookup that misses an
  id finds it too, should in:spans go after the last call).
  ARGV[1] ttl of the import's keys (ms)  ARGV[2] "1" for the first call, else "0"
  ARGV[3..] chunk numbers
  Returns {"evicted"} when a chunk's entry, or in:spans, is gone; else {"ok"}. ]]
if ARGV[2] ~= '1' and redis.call('EXISTS', K.inSpans) == 0 then return {'evicted'} end
for k = 3, #ARGV do
  local entry = redis.call('HGET', K.inPositions, ARGV[k])
  if not entry then return {'evicted'} end
  local cut = string.find(entry, '\\n', 1, true)
  local positions, ids = {}, {}
  for p in string.gmatch(string.sub(entry, 1, cut - 1), '%S+') do positions[#positions + 1] = tonumber(p) end
  for id in string.gmatch(string.sub(entry, cut + 1), '[^\\n]+') do ids[#ids + 1] = id end
  if #positions ~= #ids then error('positions do not match the ids') end
  local known, out = hmget(K.inSpans, ids), {}
  for i = 1, #ids do
    local first, last = positions[i], positions[i]
    if known[i] then
      local a, b = string.match(known[i], '^(%S+) (%S+)$')
      first, last = math.min(first, tonumber(a)), math.max(last, tonumber(b))
    end
    out[#out + 1] = ids[i]
    out[#out + 1] = first .. ' ' .. last
  end
  if #out > 0 then bulk('HSET', K.inSpans, out) end
end
redis.call('PEXPIRE', K.inSpans, ARGV[1])
return {'ok'}
`,
);

/** The first and last position of some ids of a `beginImport` import. */
export const WHERE = script(
  "import-where",
  ["inSpans"],
  `
--[[ import-where: reads only. ARGV[1..] ids of the import
  Returns first, last for each, "" for both when in:spans does not hold it (evicted). ]]
local asked = {}
for i = 1, #ARGV do asked[i] = ARGV[i] end
local spans, out = hmget(K.inSpans, asked), {}
for i = 1, #asked do
  local first, last = string.match(spans[i] or '', '^(%S+) (%S+)$')
  out[#out + 1] = first or ''
  out[#out + 1] = last or ''
end
return out
`,
);

/** Of some ids of a `beginImport` import, those whose sku another of its ids claims too. */
export const CLAIMERS = script(
  "import-claimers",
  ["inSkuOf", "inSkus", "inSpans"],
  `
--[[ import-claimers: reads only; in:spans is built (import-spans).
  ARGV[1..] ids of the import (a page of an HSCAN of in:sku-of)
  Returns a flat list of id, sku, first position, last position, for each id whose sku more
  than one id of the import claims (its entry in in:skus starts with "\\0"). Ids no longer
  staged (evicted) are skipped, and commit finds the loss by counting; positions lost to
  eviction are "". ]]
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
local held, pick = hmget(K.inSkus, skus), {}
for i = 1, #ids do
  if held[i] and string.byte(held[i], 1) == 0 then pick[#pick + 1] = i end
end
if #pick == 0 then return out end
local picked = {}
for j, i in ipairs(pick) do picked[j] = ids[i] end
local spans = hmget(K.inSpans, picked)
for j, i in ipairs(pick) do
  local first, last = string.match(spans[j] or '', '^(%S+) (%S+)$')
  for _, v in ipairs({ids[i], skus[i], first or '', last or ''}) do out[#out + 1] = v end
end
return out
`,
);

/** Gives each sku of some ids of a `beginImport` import to the id claiming it. */
export const HOLDERS = script(
  "import-holders",
  ["inSkuOf", "inSkus", "inIds"],
  `
--[[ import-holders: for an import whose in:skus has entries that name no holder (an id moved off
  a sku that others still claimed), before its commit; the import claims no sku twice (commit
  checked its claims first), so each sku of in:sku-of is given to its one claimer, and in:skus
  then holds what the site's skus hash will. Walks the id index a page per call.
  ARGV[1] ttl of the import's keys (ms)  ARGV[2] where the page starts, as ZRANGEBYLEX takes it
  ("-", or "(<id>" after <id>)  ARGV[3] most ids
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
);

/** Judges a page of a `beginImport` import against a site with products, under the lock. */
export const JUDGE = script(
  "import-judge",
  [
    "products",
    "skus",
    "stageProducts",
    "stageSkus",
    "stageSkuOf",
    "stageIds",
    "inProducts",
    "inSkuOf",
    "inSkus",
    "inIds",
    "inPositions",
  ],
  `
--[[ import-judge: part of a beginImport import's commit into a site that holds products, under
  the site lock; the import claims no sku twice and in:skus names every sku's claimer (commit
  saw to both first). Judges a page of the import's ids, in the order of its id index: counts
  each against the site, and finds skus held by a product of the site that the import does not
  name. Each id is judged once: the walk goes by id, never by a scan. Then, to publish what the
  import changes as the merging keys, either drops the products it leaves unchanged from its
  keys, which then hold exactly what it changes ("drop"), or copies the changed ones into the
  stage: keys ("copy"), whichever writes less: "auto" (the first page) picks by that page.
  ARGV[1] lock token  ARGV[2] lock ttl (ms)  ARGV[3] ttl of the import's keys and of the staging
  (ms)  ARGV[4] "drop", "copy", "auto", or "none" (a dry run, a replace, or a conflict was found)
  ARGV[5] "1" when the import replaces the site (no sku of the site is then a conflict: every
  one the import does not take is freed), else "0"  ARGV[6] where the page starts, as
  ZRANGEBYLEX takes it ("-", or "(<id>" after <id>)  ARGV[7] most ids
  Returns {"lost"} when the lock is not ours; {"evicted"} when an id has lost its product or
  sku; else {"ok", judged, created, unchanged, the mode applied, products dropped or copied,
  the last id judged or "", sku, id, heldBy, ...} where each triple is a conflict (the commit
  finds its positions afterwards). ]]
if holder(K.products) ~= ARGV[1] then return {'lost'} end
hold(K.products, ARGV[1], ARGV[2])
local ids = redis.call('ZRANGEBYLEX', K.inIds, ARGV[6], '+', 'LIMIT', 0, tonumber(ARGV[7]))
local n = #ids
if n == 0 then return {'ok', 0, 0, 0, ARGV[4], 0, ''} end
local jsons, skus = hmget(K.inProducts, ids), hmget(K.inSkuOf, ids)
for i = 1, n do
  if not jsons[i] or not skus[i] then return {'evicted'} end
end
local conflicts = {}
if ARGV[5] ~= '1' then
  -- A holder the import names moves to a new sku (the import claims none twice), so only
  -- holders it does not name conflict. A holder it names is never dropped as unchanged (its sku
  -- changes), so in:sku-of still names it.
  local holders, others, at = hmget(K.skus, skus), {}, {}
  for i = 1, n do
    local h = holders[i]
    if h and h ~= ids[i] then
      others[#others + 1] = h
      at[#at + 1] = i
    end
  end
  if #others > 0 then
    local named = hmget(K.inSkuOf, others)
    for j = 1, #others do
      if not named[j] then
        local i = at[j]
        for _, v in ipairs({skus[i], ids[i], others[j]}) do conflicts[#conflicts + 1] = v end
      end
    end
  end
end
local created, unchanged, changed = compare(K.products, ids, jsons, n)
local mode, moved = ARGV[4], 0
if #conflicts > 0 then mode = 'none' end
if mode == 'auto' then mode = unchanged > #changed and 'copy' or 'drop' end
if mode == 'drop' and unchanged > 0 then
  local kept, gone, goneSkus = {}, {}, {}
  for _, i in ipairs(changed) do kept[i] = true end
  for i = 1, n do
    if not kept[i] then
      gone[#gone + 1] = ids[i]
      goneSkus[#goneSkus + 1] = skus[i]
    end
  end
  bulk('HDEL', K.inProducts, gone)
  bulk('HDEL', K.inSkuOf, gone)
  bulk('HDEL', K.inSkus, goneSkus)
  bulk('ZREM', K.inIds, gone)
  moved = #gone
elseif mode == 'copy' and #changed > 0 then
  write(K.stageProducts, K.stageSkus, K.stageSkuOf, K.stageIds, ids, skus, jsons, changed, true)
  for _, k in ipairs({K.stageProducts, K.stageSkus, K.stageSkuOf, K.stageIds}) do redis.call('PEXPIRE', k, ARGV[3]) end
  moved = #changed
end
for _, k in ipairs({K.inProducts, K.inSkuOf, K.inSkus, K.inIds, K.inPositions}) do redis.call('PEXPIRE', k, ARGV[3]) end
local out = {'ok', n, created, unchanged, mode, moved, ids[n]}
for _, v in ipairs(conflicts) do out[#out + 1] = v end
return out
`,
);

/** Publishes a `beginImport` import by renaming its keys, which hold it in the shape of a site. */
export const PUBLISH = script(
  "import-publish",
  [
    "products",
    "skus",
    "skuOf",
    "ids",
    "mergingProducts",
    "mergingSkus",
    "mergingSkuOf",
    "mergingIds",
    "inProducts",
    "inSkuOf",
    "inSkus",
    "inIds",
    "inPositions",
  ],
  `
--[[ import-publish: makes a beginImport import visible in one step, under the site lock. O(1):
  four RENAMEs of its keys (and UNLINKs, which free replaced keys off the main thread, where
  RENAME over a key would free it inline). First checks that each key of the import holds what
  its adds counted (eviction) and that the site is as judged.
  ARGV[1] lock token  ARGV[2] lock ttl (ms)  ARGV[3] where to: "empty" (into the site, only when
  it holds no product: the bulk load of a new site, which needs no judging), "replace" (in place
  of the site, whose size must be ARGV[8]), or "merge" (beside the site, as its merging keys;
  into it when it is empty)  ARGV[4] "1" to publish, "0" to check only (a dry run)
  ARGV[5] how many products the import holds (in:products, in:sku-of, in:ids)  ARGV[6] how many
  skus (in:skus)  ARGV[7] how many chunks (in:pos)  ARGV[8] with "replace", the site's size as
  judged
  Returns "lost" (the lock is not ours, or the site is not as judged: nothing published),
  "evicted" (a key of the import lost entries or vanished: nothing published), "occupied"
  ("empty" into a site that holds products: nothing published, the caller judges the import),
  "done" (published into the site or in its place, or nothing to publish, or checked only), or
  "merge" (published as the merging keys; the caller folds them in). ]]
if holder(K.products) ~= ARGV[1] then return 'lost' end
local n = tonumber(ARGV[5])
if redis.call('HLEN', K.inProducts) ~= n or redis.call('HLEN', K.inSkuOf) ~= n or redis.call('ZCARD', K.inIds) ~= n then
  return 'evicted'
end
if redis.call('HLEN', K.inSkus) ~= tonumber(ARGV[6]) or redis.call('HLEN', K.inPositions) ~= tonumber(ARGV[7]) then
  return 'evicted'
end
if redis.call('HEXISTS', K.products, MERGING) == 1 then return 'lost' end
local mode, sites = ARGV[3], size(K.products)
hold(K.products, ARGV[1], ARGV[2])
if mode == 'empty' and sites > 0 then return 'occupied' end
if mode == 'replace' and sites ~= tonumber(ARGV[8]) then return 'lost' end
if ARGV[4] ~= '1' or (mode == 'merge' and n == 0) then return 'done' end
redis.call('UNLINK', K.inPositions)
return publish(
  {K.inProducts, K.inSkus, K.inSkuOf, K.inIds},
  {K.products, K.skus, K.skuOf, K.ids},
  {K.mergingProducts, K.mergingSkus, K.mergingSkuOf, K.mergingIds},
  mode ~= 'merge' or sites == 0, n, ARGV[1], ARGV[2])
`,
);
