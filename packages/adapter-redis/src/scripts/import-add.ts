// ADD: one chunk of a large import, staged in keys of its own in the shape of a site.
import type { Chunk } from "../chunk.ts";
import type { KeyName } from "../keys.ts";
import { type ScriptDefinition, script } from "../lua.ts";
import type { Decoders } from "../reply.ts";

export interface AddArgs {
  /** How long the import's keys live after this call. */
  readonly ttlMs: number;
  /** The chunk's number in the import, from 1: each chunk is sent once. */
  readonly chunkNumber: number;
  /** The positions of the chunk's products in the import, in order. */
  readonly positions: readonly number[];
  readonly products: Chunk;
  /**
   * Once an add of the import gave bases, each product's: the digest of its base
   * (`FoundProducts.digest`, `""` for a `null` base), or `"-"` for none (which drops a base an
   * earlier add gave its id).
   */
  readonly bases?: readonly string[] | undefined;
}

const definition = {
  name: "import-add",
  keys: ["inProducts", "inSkuOf", "inSkus", "inIds", "inPositions"] as const,
  lua: `
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
  chunk's positions, separated by spaces, in the order of its products; ARGV[4] how many bases
  follow: none, or one per product (its digest, "" for a null base, "-" for none);
  then the products (see products()), whose ids are distinct
  Returns what the chunk changed, for the client to sum: {"ok", ids new to the import, skus
  claimed, skus more than one id claims, skus one id claims but whose holder is unknown,
  entries in:bases gained}. ]]
local given = tonumber(ARGV[4])
local ids, skus, jsons, n = products(5 + given)
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
local fresh, f = {}, 0
for i = 1, n do
  if not olds[i] then
    f = f + 1
    fresh[f] = i
  end
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
for k, i in ipairs(fresh) do
  index[2 * k - 1], index[2 * k] = 0, ids[i]
end
bulk('HSET', K.inSkuOf, skuOf)
if #index > 0 then bulk('ZADD', K.inIds, index) end
if #set > 0 then bulk('HSET', K.inSkus, set) end
if #gone > 0 then bulk('HDEL', K.inSkus, gone) end
-- Ids hold no control characters (see keys.ts).
redis.call('HSET', K.inPositions, ARGV[2], ARGV[3] .. '\\n' .. table.concat(ids, '\\n'))
for _, k in ipairs({K.inProducts, K.inSkuOf, K.inSkus, K.inIds, K.inPositions}) do redis.call('PEXPIRE', k, ARGV[1]) end
-- Only a merge gives bases: other imports never touch in:bases.
local based = 0
if given > 0 then
  local set, unset, s, u = {}, {}, 0, 0
  for i = 1, n do
    local base = ARGV[4 + i]
    if base == '-' then
      u = u + 1
      unset[u] = ids[i]
    else
      s = s + 2
      set[s - 1], set[s] = ids[i], base
    end
  end
  if #set > 0 then based = bulk('HSET', K.inBases, set) end
  if #unset > 0 then based = based - bulk('HDEL', K.inBases, unset) end
  redis.call('PEXPIRE', K.inBases, ARGV[1])
end
return {'ok', #fresh, claimed, contested, unheld, based}
`,
  args: ({ ttlMs, chunkNumber, positions, products, bases = [] }: AddArgs) => [
    ttlMs,
    chunkNumber,
    positions.join(" "),
    bases.length,
    ...bases,
    ...products.args,
  ],
  replies: {
    ok: (reply) => ({
      ids: reply.int(0),
      claimed: reply.int(1),
      contested: reply.int(2),
      unheld: reply.int(3),
      based: reply.int(4),
    }),
  },
} satisfies ScriptDefinition<KeyName, AddArgs, Decoders>;

/** Stages one chunk of a `beginImport` import, out of sight, in the shape of a site. */
export const ADD = script({ ...definition, keys: [...definition.keys] });

/**
 * ADD for a merge's import, which keeps its bases in in:bases. Only it declares that key: while
 * the site's slot migrates, Redis refuses a script declaring a key that does not exist, and an
 * import without bases never has one.
 */
export const ADD_BASED = script({ ...definition, name: "import-add-based", keys: [...definition.keys, "inBases"] });
