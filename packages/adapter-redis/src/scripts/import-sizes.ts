// INCOMING_SIZES: the sizes of a large import's keys, which its adds counted: how eviction shows.
import { script } from "../lua.ts";

/** How many entries each key of a `beginImport` import holds: how commit sees eviction. */
export const INCOMING_SIZES = script({
  name: "import-sizes",
  keys: ["inProducts", "inSkuOf", "inSkus", "inIds", "inPositions"],
  lua: `
--[[ import-sizes: Returns {"ok", HLEN in:products, HLEN in:sku-of, HLEN in:skus, ZCARD in:ids,
  HLEN in:pos}. Eviction takes whole keys, so a key that lost any entry is smaller than what the
  import's adds counted. ]]
return {
  'ok',
  redis.call('HLEN', K.inProducts),
  redis.call('HLEN', K.inSkuOf),
  redis.call('HLEN', K.inSkus),
  redis.call('ZCARD', K.inIds),
  redis.call('HLEN', K.inPositions),
}
`,
  args: (_: Record<string, never>) => [],
  replies: {
    ok: (reply) => ({
      products: reply.int(0),
      skuOf: reply.int(1),
      skus: reply.int(2),
      ids: reply.int(3),
      positions: reply.int(4),
    }),
  },
});
