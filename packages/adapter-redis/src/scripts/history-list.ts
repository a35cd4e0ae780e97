// HISTORY_LIST: a page of a site's import history, newest first.
import { script } from "../lua.ts";

/** Up to `limit` records in decreasing id order, below `before` (from the greatest when undefined). */
export const HISTORY_LIST = script({
  name: "history-list",
  keys: ["historyIds", "historyRecords"],
  lua: `
--[[ history-list: ARGV[1] the greatest id excluded ("" for none)  ARGV[2] the page's size.
  Returns {"ok", id, value, id, value, ...}: one ZREVRANGEBYLEX and one HMGET, O(log n + limit). ]]
local top = ARGV[1] == '' and '+' or '(' .. ARGV[1]
local ids = redis.call('ZREVRANGEBYLEX', K.historyIds, top, '-', 'LIMIT', 0, tonumber(ARGV[2]))
local reply = {'ok'}
if #ids == 0 then return reply end
local values = hmget(K.historyRecords, ids)
for i = 1, #ids do
  -- Written and trimmed with its id in one script: never missing.
  reply[#reply + 1] = ids[i]
  reply[#reply + 1] = values[i]
end
return reply
`,
  args: ({ before, limit }: { before: string | undefined; limit: number }) => [before ?? "", limit],
  replies: { ok: (reply) => ({ entries: reply.groups(0, 2) }) },
});
