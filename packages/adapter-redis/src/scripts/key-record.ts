// KEY_RECORD: the record of an idempotency key, read, and for an import without the key's claim,
// whether another holds it.
import { script } from "../lua.ts";

/** Reads an idempotency key's record, if it lives; else whether another import holds its claim. */
export const KEY_RECORD = script({
  name: "key-record",
  keys: ["keyRecord", "keyClaim"],
  lua: `
--[[ key-record: ARGV[1] "1" when the caller holds the key's claim, else "0"
  Returns {"recorded", record} while the key's record lives; else {"claimed"} when the caller
  does not hold the claim and another does; else {"ok"}. ]]
local record = redis.call('GET', K.keyRecord)
if record then return {'recorded', record} end
if ARGV[1] == '0' and redis.call('EXISTS', K.keyClaim) == 1 then return {'claimed'} end
return {'ok'}
`,
  args: ({ claimed }: { claimed: boolean }) => [claimed ? "1" : "0"],
  replies: {
    recorded: (reply) => ({ record: reply.record(0) }),
    claimed: null,
    ok: null,
  },
});
