// UPSERT: the one call that applies an import small enough to be held by the client.
import type { Chunk } from "../chunk.ts";
import { script } from "../lua.ts";

/** Applies a batch that fits in one call: checks every sku, then writes, or writes nothing. */
export const UPSERT = script({
  name: "upsert",
  keys: ["products", "skus", "skuOf", "ids"],
  lua: `
--[[ upsert: a whole batch in one atomic call.
  ARGV[1] "1" for a dry run, else "0"; ARGV[2..] the products (see products())
  Returns {"busy"} while an import holds the site or is merging; {"conflicts", sku, id, heldBy,
  ...} listing every conflict, with nothing written; else {"ok", created, unchanged}. ]]
if busy(K.products) then return {'busy'} end
local ids, skus, jsons, n = products(2)
local found = conflicts(K.skus, ids, skus, n)
if #found > 0 then
  table.insert(found, 1, 'conflicts')
  return found
end
local created, unchanged, changed = compare(K.products, ids, jsons, n)
if ARGV[1] ~= '1' and #changed > 0 then write(K.products, K.skus, K.skuOf, K.ids, ids, skus, jsons, changed) end
return {'ok', created, unchanged}
`,
  args: ({ dryRun, products }: { dryRun: boolean; products: Chunk }) => [dryRun ? "1" : "0", ...products.args],
  replies: {
    busy: null,
    conflicts: (reply) => ({ conflicts: reply.conflicts() }),
    ok: (reply) => ({ created: reply.int(0), unchanged: reply.int(1) }),
  },
});
