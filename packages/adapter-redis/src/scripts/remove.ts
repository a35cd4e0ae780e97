// REMOVE: one product by id or sku, deleted with its sku in one call.
import type { KeyField } from "@catalog-kit/catalog-core";
import { script } from "../lua.ts";
import type { Payload } from "../reply.ts";

/** What to remove: the product whose id is `key` (unless `by` is "sku"), else whose sku is. */
export interface RemoveArgs {
  readonly key: string;
  readonly by?: KeyField | undefined;
  /** The canonical JSON the product must still have to be removed. */
  readonly expected?: string | undefined;
}

/** The arguments and answers of both removes: the key, field and expected product in, the matched product out. */
export const REMOVE_CALL = {
  args: ({ key, by, expected }: RemoveArgs) => [key, by ?? "", expected ?? ""],
  replies: {
    busy: null,
    ok: (reply: Payload) => ({ product: reply.optionalProduct(0) }),
  },
};

/** Removes what FIND_SKUS would return and frees its sku, in one atomic call. */
export const REMOVE = script({
  name: "remove",
  keys: ["products", "skus", "skuOf", "ids"],
  lua: `
--[[ remove: deletes the product whose id, else sku, is ARGV[1], and frees its sku.
  ARGV[1] key  ARGV[2] "id", "sku" or "" (id, then sku)  ARGV[3] the JSON the product must
  have to be removed, or "" to remove it whatever it is
  Returns {"busy"} while an import holds the site or is merging; the matched product's JSON
  (removed, unless ARGV[3] says otherwise), or nil when nothing matched. The last product takes
  the site's index mark with it, so that an empty site leaves no key behind. ]]
if busy(K.products) then return {'busy'} end
local key, by = ARGV[1], ARGV[2]
if reserved(key) then return false end
local id = false
if by ~= 'sku' and redis.call('HEXISTS', K.products, key) == 1 then
  id = key
elseif by ~= 'id' then
  id = redis.call('HGET', K.skus, key)
end
if not id then return false end
local json = redis.call('HGET', K.products, id)
if not json then return false end
if ARGV[3] ~= '' and json ~= ARGV[3] then return json end
local sku = redis.call('HGET', K.skuOf, id)
redis.call('HDEL', K.products, id)
redis.call('HDEL', K.skuOf, id)
redis.call('ZREM', K.ids, id)
if sku and redis.call('HGET', K.skus, sku) == id then redis.call('HDEL', K.skus, sku) end
if size(K.products) == 0 then redis.call('HDEL', K.skuOf, INDEXED) end
return json
`,
  ...REMOVE_CALL,
});
