// FIND_MERGING: a lookup of one key, for a site with a committed import on top of it, still merging.
import type { KeyField } from "@catalog-kit/catalog-core";
import { script } from "../lua.ts";

/** A lookup of one key through a committed import that is still merging. */
export const FIND_MERGING = script({
  name: "find-merging",
  keys: ["products", "skus", "mergingProducts", "mergingSkus"],
  lua: `
--[[ find-merging: a lookup of one key (by id, by sku, or by id then sku, as ARGV[2] is "id",
  "sku" or ""), as find-skus answers it, for a site with a committed import still merging,
  which lies on top of the site: its products win, and a site sku whose holder is merging was freed by the
  import, unless the import gives it to someone.
  Returns the product's JSON, or nil when none matches. ]]
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
  args: ({ key, by }: { key: string; by?: KeyField | undefined }) => [key, by ?? ""],
  replies: {
    ok: (reply) => ({ product: reply.optionalProduct(0) }),
  },
});
