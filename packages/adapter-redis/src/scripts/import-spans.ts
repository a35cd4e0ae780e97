// SPANS: each id's first and last position in a large import, gathered only to answer conflicts.
import { script } from "../lua.ts";

/** Gathers the first and last position of each id of some chunks of a `beginImport` import. */
export const SPANS = script({
  name: "import-spans",
  keys: ["inPositions", "inSpans"],
  lua: `
--[[ import-spans: for a commit that answers conflicts, which name positions: reads entries of
  in:pos (a chunk's positions and ids, as import-add wrote them) and keeps in in:spans, for each
  id, "<first> <last>": the smallest and largest position it was given (positions increase
  over the import). Reading a chunk twice changes nothing. Eviction takes whole keys: every call
  but the first finds in:spans, or the ids of earlier chunks are lost (a lookup that misses an
  id finds it too, should in:spans go after the last call).
  ARGV[1] ttl of the import's keys (ms)  ARGV[2] "1" for the first call, else "0"
  ARGV[3..] chunk numbers
  Returns {"evicted"} when a chunk's entry, or in:spans, is gone; else {"ok"}. ]]
if ARGV[2] ~= '1' and redis.call('EXISTS', K.inSpans) == 0 then return {'evicted'} end
for k = 3, #ARGV do
  local entry = redis.call('HGET', K.inPositions, ARGV[k])
  if not entry then return {'evicted'} end
  local cut = string.find(entry, '\\n', 1, true)
  local positions, ids = {}, {}
  for p in string.gmatch(string.sub(entry, 1, cut - 1), '%S+') do positions[#positions + 1] = tonumber(p) end
  for id in string.gmatch(string.sub(entry, cut + 1), '[^\\n]+') do ids[#ids + 1] = id end
  if #positions ~= #ids then error('positions do not match the ids') end
  local known, out = hmget(K.inSpans, ids), {}
  for i = 1, #ids do
    local first, last = positions[i], positions[i]
    if known[i] then
      local a, b = string.match(known[i], '^(%S+) (%S+)$')
      first, last = math.min(first, tonumber(a)), math.max(last, tonumber(b))
    end
    out[#out + 1] = ids[i]
    out[#out + 1] = first .. ' ' .. last
  end
  if #out > 0 then bulk('HSET', K.inSpans, out) end
end
redis.call('PEXPIRE', K.inSpans, ARGV[1])
return {'ok'}
`,
  args: ({ ttlMs, first, chunks }: { ttlMs: number; first: boolean; chunks: readonly number[] }) => [
    ttlMs,
    first ? "1" : "0",
    ...chunks,
  ],
  replies: { evicted: null, ok: null },
});
