// HISTORY_READ: one record of a site's import history.
import { script } from "../lua.ts";

/** The value of a record, nil when the site has none with the id. */
export const HISTORY_READ = script({
  name: "history-read",
  keys: ["historyRecords"],
  lua: `
--[[ history-read: ARGV[1] the id. Returns its value bare, or nil (one key declared, so that a
  read is served while the site's slot migrates). ]]
return redis.call('HGET', K.historyRecords, ARGV[1])
`,
  args: ({ id }: { id: string }) => [id],
  replies: { ok: (reply) => ({ value: reply.optionalText(0) }) },
});
