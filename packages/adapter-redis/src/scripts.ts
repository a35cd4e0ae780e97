import { createHash } from "node:crypto";
import type { Cluster, Redis } from "ioredis";

/** A Lua script and its SHA-1, run with EVALSHA and re-sent with EVAL when Redis lacks it. */
export interface Script {
  readonly name: string;
  readonly lua: string;
  readonly sha: string;
}

// Helpers shared by the scripts. HMGET, HSET and HDEL take whole lists, a few thousand
// arguments per call: Lua's unpack() stops at 8,000 values, and one call per field would cost
// far more than the work it does.
const PRELUDE = `
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
  local n = #args
  for i = 1, n, BULK do redis.call(command, key, unpack(args, i, math.min(i + BULK - 1, n))) end
end

-- The products of a chunk (see chunk.ts), from ARGV[first] on: their count; the JSON array of
-- their encodings, as JSON.stringify writes it; then index, id, sku of each product whose id or
-- sku is escaped in its JSON. The array is cut where one object ends and the next begins with
-- its id: a '{' followed by '"' never occurs inside a JSON string, whose quotes are escaped,
-- and a product holds no nested object. Every other id and sku is the text between the quotes
-- that follow '{"id":' and '"sku":', which come first in that order. One argument per chunk
-- instead of three per product spares the client most of its work, and Lua never decodes JSON.
local function products(first)
  local n, s = tonumber(ARGV[first]), ARGV[first + 1]
  local ids, skus, jsons, given = {}, {}, {}, {}
  for k = first + 2, #ARGV, 3 do
    local i = tonumber(ARGV[k])
    given[i], ids[i], skus[i] = true, ARGV[k + 1], ARGV[k + 2]
  end
  local find, sub = string.find, string.sub
  if sub(s, 1, 7) ~= '[{"id":' or sub(s, -2) ~= '}]' then error('malformed chunk') end
  local at, last = 2, #s - 1
  for i = 1, n do
    local stop = find(s, '},{"id":', at, true)
    if i == n then
      if stop then error('malformed chunk: more products than counted') end
      stop = last
    elseif not stop then
      error('malformed chunk: fewer products than counted')
    end
    jsons[i] = sub(s, at, stop)
    if not given[i] then
      local q = find(s, '"', at + 7, true)
      ids[i] = sub(s, at + 7, q - 1)
      local r = find(s, '"', q + 9, true)
      skus[i] = sub(s, q + 9, r - 1)
    end
    at = stop + 2
  end
  return ids, skus, jsons, n
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

-- Counts against the stored products; returns created, unchanged and the indexes to write.
local function compare(productsKey, ids, jsons, n)
  local olds, created, unchanged, changed = hmget(productsKey, ids), 0, 0, {}
  for i = 1, n do
    local old = olds[i]
    if not old then created = created + 1 end
    if old == jsons[i] then unchanged = unchanged + 1 else changed[#changed + 1] = i end
  end
  return created, unchanged, changed
end

-- Writes products into three hashes (products, skus, sku-of). Old skus are freed before new
-- ones are set, and only when they still point at their product, so skus swapped inside a
-- batch, or taken over by a product written earlier, land on their new holders.
-- The first write is an HSET, a command Redis refuses when it is out of memory: a script's
-- first write is where Redis may stop it, so an out-of-memory script stops having written
-- nothing rather than running on past maxmemory.
-- With fresh set, the hashes are known to hold none of the ids (staging), and nothing is freed.
local function write(productsKey, skusKey, skuOfKey, ids, skus, jsons, pick, fresh)
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
  local byId, bySku, skuOf = {}, {}, {}
  for _, i in ipairs(pick) do
    local id, sku = ids[i], skus[i]
    byId[#byId + 1] = id
    byId[#byId + 1] = jsons[i]
    bySku[#bySku + 1] = sku
    bySku[#bySku + 1] = id
    skuOf[#skuOf + 1] = id
    skuOf[#skuOf + 1] = sku
  end
  bulk('HSET', productsKey, byId)
  bulk('HSET', skuOfKey, skuOf)
  if #gone > 0 then bulk('HDEL', skusKey, gone) end
  bulk('HSET', skusKey, bySku)
end
`;

function script(name: string, body: string): Script {
  const lua = `${PRELUDE}\n${body.trim()}\n`;
  return { name, lua, sha: createHash("sha1").update(lua).digest("hex") };
}

/** Applies a batch that fits in one call: checks every sku, then writes, or writes nothing. */
export const UPSERT = script(
  "upsert",
  `
--[[ upsert: a whole batch in one atomic call.
  KEYS[1] products  KEYS[2] skus  KEYS[3] sku-of  KEYS[4] lock  KEYS[5] merging products
  ARGV[1] "1" for a dry run, else "0"; ARGV[2..] the products (see products())
  Returns {"busy"} while a chunked import holds the site; {"conflict", sku, id, heldBy, ...}
  listing every conflict, with nothing written; else {"ok", created, unchanged}. ]]
if redis.call('EXISTS', KEYS[4], KEYS[5]) > 0 then return {'busy'} end
local ids, skus, jsons, n = products(2)
local found = conflicts(KEYS[2], ids, skus, n)
if #found > 0 then
  table.insert(found, 1, 'conflict')
  return found
end
local created, unchanged, changed = compare(KEYS[1], ids, jsons, n)
if ARGV[1] ~= '1' and #changed > 0 then write(KEYS[1], KEYS[2], KEYS[3], ids, skus, jsons, changed) end
return {'ok', created, unchanged}
`,
);

/** Checks one chunk of a chunked import against the site and stages what it would change. */
export const STAGE = script(
  "stage",
  `
--[[ stage: one chunk of a chunked import, under the site lock.
  KEYS[1] lock  KEYS[2] products  KEYS[3] skus  KEYS[4] stage products  KEYS[5] stage skus
  KEYS[6] stage sku-of
  ARGV[1] lock token  ARGV[2] lock ttl (ms)  ARGV[3] stage ttl (ms)  ARGV[4] "1" to stage,
  "0" for a dry run; ARGV[5..] the chunk's products (see products())
  Returns {"lost"} when the lock is not ours; else {"ok", created, unchanged, site size, sku, id,
  heldBy, ...} where each triple is a sku held outside this chunk (the caller drops holders that
  are in the batch). Stages only the products that would change; the site is never written. ]]
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return {'lost'} end
local ids, skus, jsons, n = products(5)
local out = conflicts(KEYS[3], ids, skus, n)
local created, unchanged, changed = compare(KEYS[2], ids, jsons, n)
table.insert(out, 1, redis.call('HLEN', KEYS[2]))
table.insert(out, 1, unchanged)
table.insert(out, 1, created)
table.insert(out, 1, 'ok')
if ARGV[4] == '1' then
  if #changed > 0 then write(KEYS[4], KEYS[5], KEYS[6], ids, skus, jsons, changed, true) end
  -- Every chunk renews all staging keys, so they outlive the lock, which every chunk renews too.
  for k = 4, 6 do redis.call('PEXPIRE', KEYS[k], ARGV[3]) end
end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return out
`,
);

/** Writes one chunk of the first import into an empty site to its staging, unchecked. */
export const STAGE_FRESH = script(
  "stage-fresh",
  `
--[[ stage-fresh: one chunk of the first import into an empty site (no lock: the staging is
  private, and commit-fresh publishes it only if the site is still empty).
  KEYS[1] stage products  KEYS[2] stage skus  KEYS[3] stage sku-of
  ARGV[1] stage ttl (ms); ARGV[2..] the chunk's products (see products())
  Returns how many products it wrote. ]]
local ids, skus, jsons, n = products(2)
local all = {}
for i = 1, n do all[i] = i end
write(KEYS[1], KEYS[2], KEYS[3], ids, skus, jsons, all, true)
for k = 1, 3 do redis.call('PEXPIRE', KEYS[k], ARGV[1]) end
return n
`,
);

/** Makes a staged import visible in one step, without copying it. */
export const COMMIT = script(
  "commit",
  `
--[[ commit: publishes a staged import, under the site lock. O(1): three RENAMEs (and three
  UNLINKs, which free the replaced hashes off the main thread).
  KEYS[1] lock  KEYS[2..4] products, skus, sku-of  KEYS[5..7] the same, staged
  KEYS[8..10] the same, merging
  ARGV[1] lock token  ARGV[2] how many products were staged  ARGV[3] "" to add the staging to the
  site, or the site's size when the staging holds the site's whole next state (it replaces it)
  Returns "lost" (lock or staging gone: nothing published), "done" (published into an empty site,
  or in place of the site, or nothing to publish), or "merge" (published as the merging hashes;
  the caller folds them in). ]]
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 'lost' end
if redis.call('HLEN', KEYS[5]) ~= tonumber(ARGV[2]) then return 'lost' end
if ARGV[2] == '0' then return 'done' end
if redis.call('EXISTS', KEYS[8], KEYS[9], KEYS[10]) > 0 then return 'lost' end
local target = 8
if ARGV[3] and ARGV[3] ~= '' then
  if redis.call('HLEN', KEYS[2]) ~= tonumber(ARGV[3]) then return 'lost' end
  redis.call('UNLINK', KEYS[2], KEYS[3], KEYS[4])
end
if redis.call('EXISTS', KEYS[2], KEYS[3], KEYS[4]) == 0 then target = 2 end
for k = 0, 2 do
  redis.call('RENAME', KEYS[5 + k], KEYS[target + k])
  redis.call('PERSIST', KEYS[target + k])
end
if target == 2 then return 'done' end
return 'merge'
`,
);

/** Publishes an import staged into an empty site, if the site is still empty. */
export const COMMIT_FRESH = script(
  "commit-fresh",
  `
--[[ commit-fresh: RENAMEs staged hashes into a site that nobody has written, held or filled
  since staging began (no lock taken: the emptiness check here is the guard). O(1).
  KEYS[1] lock  KEYS[2..4] products, skus, sku-of  KEYS[5..7] the same, merging
  KEYS[8..10] the same, staged
  ARGV[1] how many products were staged
  Returns "done", "taken" (the site is no longer empty: nothing published), or "lost" (the
  staging expired: nothing published). ]]
if redis.call('EXISTS', KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7]) > 0 then return 'taken' end
if redis.call('HLEN', KEYS[8]) ~= tonumber(ARGV[1]) then return 'lost' end
for k = 0, 2 do
  redis.call('RENAME', KEYS[8 + k], KEYS[2 + k])
  redis.call('PERSIST', KEYS[2 + k])
end
return 'done'
`,
);

/** Copies into a staging the site's products that a batch replacing the whole site keeps as they are. */
export const BACKFILL = script(
  "backfill",
  `
--[[ backfill: for a batch that names every product of the site, copies the products it leaves
  unchanged into the staging, which then holds the site's whole next state. Under the site lock.
  KEYS[1] lock  KEYS[2] products  KEYS[3] sku-of  KEYS[4..6] stage products, skus, sku-of
  ARGV[1] lock token  ARGV[2] lock ttl (ms)  ARGV[3] stage ttl (ms); then ids of the batch
  (those already staged are skipped)
  Returns -1 when the lock is not ours; else how many products it copied. ]]
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return -1 end
local asked = {}
for i = 4, #ARGV do asked[#asked + 1] = ARGV[i] end
local staged, ids = hmget(KEYS[6], asked), {}
for i = 1, #asked do
  if not staged[i] then ids[#ids + 1] = asked[i] end
end
local copied = 0
if #ids > 0 then
  local jsons, skus, pick = hmget(KEYS[2], ids), hmget(KEYS[3], ids), {}
  for i = 1, #ids do
    if jsons[i] and skus[i] then pick[#pick + 1] = i end
  end
  copied = #pick
  if copied > 0 then write(KEYS[4], KEYS[5], KEYS[6], ids, skus, jsons, pick, true) end
end
for k = 4, 6 do redis.call('PEXPIRE', KEYS[k], ARGV[3]) end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return copied
`,
);

/** Folds part of a committed import into the site; readers see the same catalog before and after. */
export const MERGE = script(
  "merge",
  `
--[[ merge: moves products from the merging hashes into the site, under the site lock.
  KEYS[1] lock  KEYS[2..4] products, skus, sku-of  KEYS[5..7] merging products, skus, sku-of
  ARGV[1] lock token  ARGV[2] lock ttl (ms); then ids (those not merging are skipped)
  Returns -1 when the lock is not ours; else how many products are still merging. ]]
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return -1 end
local asked = {}
for i = 3, #ARGV do asked[#asked + 1] = ARGV[i] end
local found, skuOf = hmget(KEYS[5], asked), hmget(KEYS[7], asked)
local ids, skus, jsons, pick = {}, {}, {}, {}
for i = 1, #asked do
  if found[i] then
    local n = #ids + 1
    ids[n], skus[n], jsons[n], pick[n] = asked[i], skuOf[i], found[i], n
  end
end
if #ids > 0 then
  write(KEYS[2], KEYS[3], KEYS[4], ids, skus, jsons, pick)
  bulk('HDEL', KEYS[5], ids)
  bulk('HDEL', KEYS[7], ids)
  bulk('HDEL', KEYS[6], skus)
end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return redis.call('HLEN', KEYS[5])
`,
);

/** Reads one product by id and/or sku, through a committed import that is still merging. */
export const FIND = script(
  "find",
  `
--[[ find: the product whose id is ARGV[1] (unless ARGV[2] is "sku"), else whose sku is ARGV[1]
  (unless ARGV[2] is "id").
  KEYS[1] products  KEYS[2] skus  KEYS[3] merging products  KEYS[4] merging skus
  Returns the product's JSON, or nil.
  A committed import still merging lies on top of the site: its products win, and a site sku
  whose holder is merging was freed by the import, unless the import gives it to someone. ]]
local key, by = ARGV[1], ARGV[2]
if by ~= 'sku' then
  local json = redis.call('HGET', KEYS[3], key) or redis.call('HGET', KEYS[1], key)
  if json then return json end
end
if by ~= 'id' then
  local id = redis.call('HGET', KEYS[4], key)
  if id then return redis.call('HGET', KEYS[3], id) end
  id = redis.call('HGET', KEYS[2], key)
  if id and redis.call('HEXISTS', KEYS[3], id) == 0 then return redis.call('HGET', KEYS[1], id) end
end
return false
`,
);

/** Removes what FIND would return and frees its sku, in one atomic call. */
export const REMOVE = script(
  "remove",
  `
--[[ remove: deletes the product whose id, else sku, is ARGV[1], and frees its sku.
  KEYS[1] products  KEYS[2] skus  KEYS[3] sku-of  KEYS[4] lock  KEYS[5] merging products
  ARGV[1] key  ARGV[2] "id", "sku" or "" (id, then sku)
  Returns {"busy"} while a chunked import holds the site; {"ok", json} with the removed product,
  or {"ok"} when nothing matched. ]]
if redis.call('EXISTS', KEYS[4], KEYS[5]) > 0 then return {'busy'} end
local key, by = ARGV[1], ARGV[2]
local id = false
if by ~= 'sku' and redis.call('HEXISTS', KEYS[1], key) == 1 then
  id = key
elseif by ~= 'id' then
  id = redis.call('HGET', KEYS[2], key)
end
if not id then return {'ok'} end
local json = redis.call('HGET', KEYS[1], id)
if not json then return {'ok'} end
local sku = redis.call('HGET', KEYS[3], id)
redis.call('HDEL', KEYS[1], id)
redis.call('HDEL', KEYS[3], id)
if sku and redis.call('HGET', KEYS[2], sku) == id then redis.call('HDEL', KEYS[2], sku) end
return {'ok', json}
`,
);

/** Takes the site lock for a chunked import, and says whether a committed import is still merging. */
export const ACQUIRE = script(
  "acquire",
  `
--[[ acquire: SET lock NX with a TTL.
  KEYS[1] lock  KEYS[2] merging products (what the one-call writes test for "busy", too)
  ARGV[1] token  ARGV[2] ttl (ms)
  Returns {1 if taken else 0, 1 if an import is merging else 0} ]]
local taken = 0
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then taken = 1 end
return {taken, redis.call('EXISTS', KEYS[2])}
`,
);

/** Drops an import's staging hashes and gives back its lock (if still its own). */
export const RELEASE = script(
  "release",
  `
--[[ release: ends a chunked import.
  KEYS[1] lock  KEYS[2..4] the import's staging hashes
  ARGV[1] token
  Returns 1 when the lock was ours, else 0. UNLINK frees large staging hashes off the main thread. ]]
redis.call('UNLINK', KEYS[2], KEYS[3], KEYS[4])
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('DEL', KEYS[1])
  return 1
end
return 0
`,
);

/**
 * Runs a script by SHA-1, sending its source once when the server answers NOSCRIPT (after a
 * restart, a failover or SCRIPT FLUSH). Arguments are one flat list, however long.
 */
export async function runScript(
  client: Redis | Cluster,
  script: Script,
  keys: readonly string[],
  args: readonly (string | Buffer | number)[],
): Promise<unknown> {
  // One flat argument list; its head is swapped from SHA-1 to source for the retry.
  const argv: (string | Buffer | number)[] = [script.sha, keys.length, ...keys, ...args];
  try {
    return await client.call("EVALSHA", argv);
  } catch (error) {
    if (!(error instanceof Error) || !error.message.startsWith("NOSCRIPT")) throw error;
    argv[0] = script.lua;
    return await client.call("EVAL", argv);
  }
}
