import type { AccessLogEntry } from "@catalog-kit/http-node";
import { fc, test } from "@fast-check/vitest";
import { describe, expect, it, vi } from "vitest";
import { createAccessLog, formatAccessLog } from "../src/access-log.ts";

const entry = (requestId: string, path = "/healthz"): AccessLogEntry => ({
  method: "GET",
  path,
  status: 200,
  durationMs: 0.123456,
  requestId,
  route: "health",
});

describe("formatAccessLog", () => {
  // Printable ASCII (quotes and backslashes among it) and any code unit at all, lone surrogates included.
  const paths = fc.oneof(fc.string(), fc.string({ unit: "binary" }));
  test.prop([paths])("is one line of JSON whatever the path holds", (path) => {
    const line = formatAccessLog(entry("r-1", path), new Date(0));
    expect(line).not.toContain("\n");
    expect(JSON.parse(line)).toEqual({
      time: "1970-01-01T00:00:00.000Z",
      method: "GET",
      path: JSON.parse(JSON.stringify(path)),
      status: 200,
      durationMs: 0.12,
      requestId: "r-1",
    });
  });
});

describe("createAccessLog", () => {
  it("writes queued lines in one batch, after the interval or at once when the buffer is full", async () => {
    const writes: string[] = [];
    const log = createAccessLog((text) => writes.push(text), { flushIntervalMs: 20, maxBufferChars: 10_000 });
    for (let i = 0; i < 50; i++) log.log(entry(`r-${i}`));
    expect(writes).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(writes).toHaveLength(1);
    expect((writes[0] as string).trimEnd().split("\n")).toHaveLength(50);

    for (let i = 0; i < 200; i++) log.log(entry(`s-${i}`));
    expect(writes.length).toBeGreaterThan(1); // a full buffer does not wait for the timer
    log.flush();
    const lines = writes.join("").trimEnd().split("\n");
    expect(lines.map((line) => (JSON.parse(line) as { requestId: string }).requestId)).toEqual([
      ...Array.from({ length: 50 }, (_, i) => `r-${i}`),
      ...Array.from({ length: 200 }, (_, i) => `s-${i}`),
    ]);
    const before = writes.length;
    log.flush();
    expect(writes).toHaveLength(before); // nothing queued: no empty write
  });

  it("times each line when it was logged, however late the batch is written", () => {
    vi.useFakeTimers({ now: Date.UTC(2026, 0, 1) });
    try {
      const writes: string[] = [];
      const log = createAccessLog((text) => writes.push(text), { flushIntervalMs: 1_000 });
      log.log(entry("first"));
      vi.setSystemTime(Date.UTC(2026, 0, 1, 0, 0, 0, 500));
      log.log(entry("second"));
      vi.advanceTimersByTime(1_000);
      const times = writes
        .join("")
        .trimEnd()
        .split("\n")
        .map((line) => (JSON.parse(line) as { time: string }).time);
      expect(times).toEqual(["2026-01-01T00:00:00.000Z", "2026-01-01T00:00:00.500Z"]);
    } finally {
      vi.useRealTimers();
    }
  });

  // Lines of one second share its formatted part: any moments (before 1970 and after 9999 among
  // them), several in one second or one millisecond, must still read as toISOString reads them.
  const LAST = 8_640_000_000_000_000; // the last moment a Date can hold
  const moment = fc.integer({ min: -62_198_755_200_000, max: LAST });
  const moments = fc
    .array(fc.tuple(moment, fc.nat(2_500)), { maxLength: 20 })
    .map((pairs) => pairs.flatMap(([at, later]) => [at, Math.min(at + (later % 3), LAST), Math.min(at + later, LAST)]));
  test.prop([moments])("writes each line's time as toISOString does", (times) => {
    vi.useFakeTimers();
    try {
      const writes: string[] = [];
      const log = createAccessLog((text) => writes.push(text));
      for (const [i, at] of times.entries()) {
        vi.setSystemTime(at);
        log.log(entry(`r-${i}`));
      }
      log.flush();
      const written = writes.join("").split("\n").filter(Boolean);
      expect(written.map((line) => (JSON.parse(line) as { time: string }).time)).toEqual(
        times.map((at) => new Date(at).toISOString()),
      );
    } finally {
      vi.useRealTimers();
    }
  });
});
