// HISTORY_SAVE: one record of a site's import history written, its report with it, then the trim.
import { script } from "../lua.ts";

/** What HISTORY_SAVE writes: the record, its report when given, and the retention when given. */
export interface HistorySaveArgs {
  readonly id: string;
  readonly value: string;
  readonly problems?: string | undefined;
  readonly trim?: { readonly keep: number; readonly before: string } | undefined;
}

/** Writes a record (and its report) in place of the one it had, then trims the site's history. */
export const HISTORY_SAVE = script({
  name: "history-save",
  keys: ["historyIds", "historyRecords", "historyProblems"],
  lua: `
--[[ history-save: ARGV[1] the id  ARGV[2] the value  ARGV[3] "set" to write ARGV[4] as the
  report, "" to leave the report as it is  ARGV[5] how many records to keep ("" for no trim)
  ARGV[6] the least id kept; the record saved stays, whatever the trim. Returns {"ok"}. The same call run twice leaves what one run left
  (a caller retries a save whose reply was lost). Ids are all scored 0, so ZRANGEBYLEX orders
  them by their bytes, which is the contract's order. ]]
local id = ARGV[1]
redis.call('ZADD', K.historyIds, 0, id)
redis.call('HSET', K.historyRecords, id, ARGV[2])
if ARGV[3] == 'set' then redis.call('HSET', K.historyProblems, id, ARGV[4]) end
if ARGV[5] == '' then return {'ok'} end
local function drop(found)
  local ids = {}
  for _, each in ipairs(found) do if each ~= id then ids[#ids + 1] = each end end
  if #ids == 0 then return end
  bulk('ZREM', K.historyIds, ids)
  bulk('HDEL', K.historyRecords, ids)
  bulk('HDEL', K.historyProblems, ids)
end
drop(redis.call('ZRANGEBYLEX', K.historyIds, '-', '(' .. ARGV[6]))
local extra = redis.call('ZCARD', K.historyIds) - tonumber(ARGV[5])
if extra > 0 then drop(redis.call('ZRANGE', K.historyIds, 0, extra - 1)) end
return {'ok'}
`,
  args: ({ id, value, problems, trim }: HistorySaveArgs) => [
    id,
    value,
    problems === undefined ? "" : "set",
    problems ?? "",
    trim === undefined ? "" : trim.keep,
    trim?.before ?? "",
  ],
  replies: { ok: null },
});
