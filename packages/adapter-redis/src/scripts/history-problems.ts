// HISTORY_PROBLEMS: the problem report of one record of a site's import history.
import { script } from "../lua.ts";

/** The report saved with a record, nil when it has none. */
export const HISTORY_PROBLEMS = script({
  name: "history-problems",
  keys: ["historyProblems"],
  lua: `
--[[ history-problems: ARGV[1] the id. Returns its report bare (up to 16 MiB), or nil. ]]
return redis.call('HGET', K.historyProblems, ARGV[1])
`,
  args: ({ id }: { id: string }) => [id],
  replies: { ok: (reply) => ({ problems: reply.optionalText(0) }) },
});
