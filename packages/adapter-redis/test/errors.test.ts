import { fc, test } from "@fast-check/vitest";
import { describe, expect } from "vitest";
import { evictedStaging, lostLock, slotMoving, unavailable } from "../src/errors.ts";

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

describe("what an operator is told", () => {
  // As ioredis and Redis write them, hosts and ports included.
  const dropped = [
    "Connection is closed.",
    "Stream isn't writeable and enableOfflineQueue options is false",
    "read ECONNRESET",
    "write ECONNRESET",
    "write EPIPE",
    "connect ECONNREFUSED 10.0.0.1:6379",
    // How ioredis fails a command in flight when its connection closes, with maxRetriesPerRequest 0.
    'Reached the max retries per request limit (which is 0). Refer to "maxRetriesPerRequest" option for details.',
    "Too many Cluster redirections. Last error: Error: Connection is closed.",
    "Failed to refresh slots cache.",
    "None of startup nodes is available",
    "Cluster isn't ready and enableOfflineQueue options is false",
  ];
  test.each(dropped)("a connection that dropped or never came is 'Redis is not reachable': %s", (message) => {
    expect(unavailable(new Error(message), "remove", "unknown").message).toBe(
      "Redis remove failed: Redis is not reachable; it may or may not have been applied, and retrying it is safe",
    );
    expect(unavailable(new Error(message), "find").message).toBe("Redis find failed: Redis is not reachable");
  });

  test.each([
    "MOVED 3999 10.0.0.1:7000",
    "ASK 3999 10.0.0.1:7000",
    "TRYAGAIN Multiple keys request during rehashing of slot",
    "CLUSTERDOWN The cluster is down",
    "Too many Cluster redirections. Last error: ReplyError: MOVED 3999 10.0.0.1:7000",
    // A host named like a connection error is still a redirection.
    "MOVED 3999 econnreset-closed.example:7000",
  ])("a Cluster that does not serve the site says so: %s", (message) => {
    expect(unavailable(new Error(message), "find").message).toBe(
      "Redis find failed: the Redis Cluster does not serve this site right now",
    );
  });

  test("a staging that is gone names every way it can go, and that nothing was written", () => {
    const { code, message } = evictedStaging();
    expect(code).toBe("STORAGE_UNAVAILABLE");
    expect(message).toMatch(/staging .* is gone/);
    expect(message).toMatch(/expired/);
    expect(message).toMatch(/60 s/);
    expect(message).toMatch(/volatile-\* maxmemory-policy/);
    expect(message).toMatch(/restarted without persistence/);
    expect(message).toMatch(/aborted/);
    expect(message).toMatch(/; nothing was written$/);
  });

  test("a lost lock names a restart too", () => {
    expect(lostLock().message).toMatch(/lockTtlMs/);
    expect(lostLock().message).toMatch(/restarted without persistence/);
    expect(lostLock().message).toMatch(/; nothing was written$/);
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
