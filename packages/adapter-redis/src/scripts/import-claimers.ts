// CLAIMERS: the ids of a large import that claim a sku another of its ids claims too.
import { script } from "../lua.ts";
import { type Span, span } from "./import-where.ts";

/** An id of the import that claims a sku others claim too, and its span (none when evicted). */
export interface Claimer {
  readonly id: string;
  readonly sku: string;
  readonly span: Span | undefined;
}

function claimer([id, sku, first, last]: string[]): Claimer {
  return { id, sku, span: span(first, last) } as Claimer;
}

/** Of some ids of a `beginImport` import, those whose sku another of its ids claims too. */
export const CLAIMERS = script({
  name: "import-claimers",
  keys: ["inSkuOf", "inSkus", "inSpans"],
  lua: `
--[[ import-claimers: reads only; in:spans is built (import-spans).
  ARGV[1..] ids of the import (a page of an HSCAN of in:sku-of)
  Returns {"ok", id, sku, first position, last position, ...}: those four for each id whose sku
  more than one id of the import claims (its entry in in:skus starts with "\\0"). Ids no longer
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
local out = {'ok'}
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
  args: ({ ids }: { ids: readonly string[] }) => ids,
  replies: {
    ok: (reply) => ({ claimers: reply.groups(0, 4).map(claimer) }),
  },
});
