// DELIVERIES_ADD: deliveries put in the queue, those whose id it holds left as they are.
import type { Delivery } from "@catalog-kit/catalog-core";
import { script } from "../lua.ts";

/** Enqueues each delivery whose id the queue does not hold: due at its `dueAt`, unleased. */
export const DELIVERIES_ADD = script({
  name: "deliveries-add",
  keys: ["deliveriesDue", "deliveryValues"],
  lua: `
--[[ deliveries-add: ARGV id, dueAt, value for each delivery. Returns {"ok"}. Every delivery
  held has its value, so HSETNX tells a new id from one held (leased or not), which keeps its
  value, due time and lease: the same save sent twice enqueues nothing twice. ]]
for i = 1, #ARGV, 3 do
  if redis.call('HSETNX', K.deliveryValues, ARGV[i], ARGV[i + 2]) == 1 then
    redis.call('ZADD', K.deliveriesDue, ARGV[i + 1], ARGV[i])
  end
end
return {'ok'}
`,
  args: ({ deliveries }: { deliveries: readonly Delivery[] }) =>
    deliveries.flatMap(({ id, dueAt, value }) => [id, String(dueAt), value]),
  replies: { ok: null },
});
