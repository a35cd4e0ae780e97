// WHERE: the positions of some ids of a large import, to place its conflicts.
import { script } from "../lua.ts";

/** The first and last position an id was given in the import. */
export interface Span {
  readonly first: number;
  readonly last: number;
}

// An id that in:spans no longer holds has no span: eviction took it.
export function span(first: string | undefined, last: string | undefined): Span | undefined {
  return first && last ? { first: Number(first), last: Number(last) } : undefined;
}

/** The first and last position of some ids of a `beginImport` import. */
export const WHERE = script({
  name: "import-where",
  keys: ["inSpans"],
  lua: `
--[[ import-where: reads only. ARGV[1..] ids of the import
  Returns {"ok", first, last, ...}: first and last for each, "" for both when in:spans does not
  hold it (evicted). ]]
local asked = {}
for i = 1, #ARGV do asked[i] = ARGV[i] end
local spans, out = hmget(K.inSpans, asked), {'ok'}
for i = 1, #asked do
  local first, last = string.match(spans[i] or '', '^(%S+) (%S+)$')
  out[#out + 1] = first or ''
  out[#out + 1] = last or ''
end
return out
`,
  args: ({ ids }: { ids: readonly string[] }) => ids,
  replies: {
    ok: (reply) => ({ spans: reply.groups(0, 2).map(([first, last]) => span(first, last)) }),
  },
});
