import { fc, test } from "@fast-check/vitest";
import { describe, expect } from "vitest";
import { slotMoving, unavailable } from "../src/errors.ts";

// Error messages as ioredis and Redis write them, with the hosts, ports and slots they name.
const host = fc.oneof(fc.ipV4(), fc.domain());
const port = fc.integer({ min: 1, max: 65_535 });
const slot = fc.integer({ min: 0, max: 16_383 });
const redisError = fc.oneof(
  fc.tuple(slot, host, port).map(([s, h, p]) => `MOVED ${s} ${h}:${p}`),
  fc
    .tuple(slot, host, port)
    .map(([s, h, p]) => `Too many Cluster redirections. Last error: ReplyError: ASK ${s} ${h}:${p}`),
  fc.tuple(host, port).map(([h, p]) => `connect ECONNREFUSED ${h}:${p}`),
  fc.tuple(host, port).map(([h, p]) => `getaddrinfo ENOTFOUND ${h}:${p}`),
  fc.constant("Command timed out"),
  fc.constant("OOM command not allowed when used memory > 'maxmemory'."),
  fc.string(),
);

describe("unavailable", () => {
  test.prop([redisError, fc.constantFrom("find", "upsert", "remove")])(
    "names no host, port or slot, and keeps the original as the cause",
    (message, what) => {
      const original = new Error(message);
      const error = unavailable(original, what, "unknown");
      expect(error.code).toBe("STORAGE_UNAVAILABLE");
      expect(error.cause).toBe(original);
      expect(error.message).not.toMatch(/\d/);
      // Redis refuses for memory only commands that have written nothing.
      expect(error.message).toMatch(
        message.startsWith("OOM ") ? /; nothing was written$/ : /may or may not have been applied/,
      );
    },
  );

  test("says that nothing was written only when that is known", () => {
    expect(unavailable(new Error("x"), "upsert", "nothing written").message).toMatch(/nothing was written/);
    expect(unavailable(new Error("x"), "upsert", "unknown").message).not.toMatch(/nothing was written/);
  });
});

describe("slotMoving", () => {
  test("only refusals Redis answers before running anything count", () => {
    expect(slotMoving(new Error("TRYAGAIN Multiple keys request during rehashing of slot"))).toBe(true);
    expect(
      slotMoving(new Error("Too many Cluster redirections. Last error: ReplyError: TRYAGAIN Multiple keys request")),
    ).toBe(true);
    // The last try's connection closed after the command went out: Redis may have run it.
    expect(slotMoving(new Error("Too many Cluster redirections. Last error: Error: Connection is closed."))).toBe(
      false,
    );
    expect(slotMoving(new Error("CLUSTERDOWN The cluster is down"))).toBe(false);
    expect(slotMoving(new Error("Connection is closed."))).toBe(false);
  });
});
