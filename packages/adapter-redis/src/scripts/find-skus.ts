// FIND_SKUS: lookups of many keys of one site at once, in one read.
import type { KeyField } from "@catalog-kit/catalog-core";
import { script } from "../lua.ts";

/** One key of a batch: looked up by sku only (`"sku"`), or first by id, then by sku (`undefined`). */
export interface SkuLookup {
  readonly key: string;
  readonly by: Exclude<KeyField, "id"> | undefined;
}

/** Reads the product of each key, unless a committed import is still merging. */
export const FIND_SKUS = script({
  name: "find-skus",
  keys: ["products", "skus"],
  lua: `
--[[ find-skus: ARGV is a list of pairs: how to look ("sku": by sku only; "": by id, then by sku
  when no product has that id), then the key. A key that starts like a state field matches nothing.
  Answers every pair in one call: {"ok", json or nil for each pair, in order};
  {"merging"} while a committed import is still merging (then find-merging reads through it,
  key by key). A script runs whole, so every answer reads the site as it stood at one moment. ]]
if redis.call('HEXISTS', K.products, MERGING) == 1 then return {'merging'} end
local n = #ARGV / 2
local out = {'ok'}
for i = 1, n do out[i + 1] = false end
-- Keys that may be ids are looked up as ids first; the others, and those that miss, by sku.
local byId, idAt = {}, {}
for i = 1, n do
  local key = ARGV[2 * i]
  if not reserved(key) and ARGV[2 * i - 1] ~= 'sku' then
    byId[#byId + 1] = key
    idAt[#byId] = i
  end
end
local missed = {}
if #byId > 0 then
  local jsons = hmget(K.products, byId)
  for j = 1, #byId do
    if jsons[j] then out[idAt[j] + 1] = jsons[j] else missed[idAt[j]] = true end
  end
end
local skus, skuAt = {}, {}
for i = 1, n do
  local key = ARGV[2 * i]
  if not reserved(key) and (ARGV[2 * i - 1] == 'sku' or missed[i]) then
    skus[#skus + 1] = key
    skuAt[#skus] = i
  end
end
if #skus == 0 then return out end
local holders = hmget(K.skus, skus)
local ids, at = {}, {}
for j = 1, #skus do
  if holders[j] then
    ids[#ids + 1] = holders[j]
    at[#ids] = skuAt[j]
  end
end
if #ids == 0 then return out end
local jsons = hmget(K.products, ids)
for j = 1, #ids do
  if jsons[j] then out[at[j] + 1] = jsons[j] end
end
return out
`,
  args: (lookups: readonly SkuLookup[]) => {
    const argv: string[] = [];
    for (const { key, by } of lookups) argv.push(by ?? "", key);
    return argv;
  },
  replies: {
    merging: null,
    ok: (reply) => ({ jsons: Array.from({ length: reply.length }, (_, i) => reply.optionalText(i)) }),
  },
});
