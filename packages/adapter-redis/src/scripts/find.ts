// FIND: one product by id or sku, in one read of the site.
import type { KeyField } from "@catalog-kit/catalog-core";
import { script } from "../lua.ts";

/** Reads one product by id and/or sku, unless a committed import is still merging. */
export const FIND = script({
  name: "find",
  keys: ["products", "skus"],
  lua: `
--[[ find: the product whose id is ARGV[1] (unless ARGV[2] is "sku"), else whose sku is ARGV[1]
  (unless ARGV[2] is "id").
  Returns the product's JSON, or nil when none matches; {"merging"} while a committed
  import is still merging (then find-merging reads through it). Declares only keys that exist, so
  that it is served while the site's slot migrates. ]]
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
  args: ({ key, by }: { key: string; by?: KeyField | undefined }) => [key, by ?? ""],
  replies: {
    merging: null,
    ok: (reply) => ({ product: reply.optionalProduct(0) }),
  },
});
