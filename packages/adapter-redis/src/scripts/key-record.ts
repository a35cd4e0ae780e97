// KEY_RECORD: the record of an idempotency key, read.
import { script } from "../lua.ts";

/** Reads an idempotency key's record, if it lives. */
export const KEY_RECORD = script({
  name: "key-record",
  keys: ["keyRecord"],
  lua: `
--[[ key-record: Returns {"recorded", record} while the key's record lives, else {"ok"}. ]]
local record = redis.call('GET', K.keyRecord)
if record then return {'recorded', record} end
return {'ok'}
`,
  args: (_: Record<string, never>) => [],
  replies: {
    recorded: (reply) => ({ record: reply.record(0) }),
    ok: null,
  },
});
