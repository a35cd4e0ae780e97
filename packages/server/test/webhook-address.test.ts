// Which addresses a webhook may reach, and the lookup that checks the address connected to;
// the retry's timing (Retry-After, jittered backoff).
import type { LookupAddress } from "node:dns";
import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { isPublicAddress, PrivateAddressError, publicOnlyLookup } from "../src/webhooks/address.ts";
import { backoffMs, retryAfterMs } from "../src/webhooks/retry.ts";

const octet = fc.integer({ min: 0, max: 255 });
const v4 = (a: number, b: number, c: number, d: number) => `${a}.${b}.${c}.${d}`;

describe("isPublicAddress", () => {
  test.prop([
    fc.constantFrom(
      [10, 0, 255],
      [127, 0, 255],
      [192, 168, 168],
      [172, 16, 31],
      [169, 254, 254],
      [100, 64, 127],
      [0, 0, 255],
    ),
    octet,
    octet,
    octet,
  ])(
    "refuses every address of the private, loopback, link-local, CGNAT and unspecified IPv4 blocks, mapped into IPv6 too",
    ([first, low, high], b, c, d) => {
      const address = v4(first as number, (low as number) + (b % ((high as number) - (low as number) + 1)), c, d);
      expect(isPublicAddress(address)).toBe(false);
      expect(isPublicAddress(`::ffff:${address}`)).toBe(false);
    },
  );

  it("passes public unicast addresses, and refuses the IPv6 blocks that are not", () => {
    for (const address of ["93.184.215.14", "8.8.8.8", "2606:4700:4700::1111", "::ffff:8.8.8.8"]) {
      expect(isPublicAddress(address), address).toBe(true);
    }
    for (const address of [
      "::1",
      "::",
      "fe80::1",
      "fd12:3456::1",
      "fc00::1",
      "ff02::1",
      "64:ff9b::7f00:1",
      "2002:7f00:1::",
      "224.0.0.1",
      "255.255.255.255",
      "not an address",
    ]) {
      expect(isPublicAddress(address), address).toBe(false);
    }
  });
});

describe("publicOnlyLookup", () => {
  const resolving =
    (addresses: LookupAddress[]) =>
    (_host: string, _options: object, done: (error: Error | null, addresses: LookupAddress[]) => void) =>
      done(null, addresses);
  const look = (addresses: LookupAddress[], all: boolean) =>
    new Promise<{ error: Error | null; result: unknown }>((resolve) => {
      publicOnlyLookup(resolving(addresses))("erp.example", { all }, (error, result) => resolve({ error, result }));
    });

  it("fails when any address of the name is not public, connecting to none", async () => {
    const mixed = [
      { address: "93.184.215.14", family: 4 },
      { address: "10.0.0.7", family: 4 },
    ];
    for (const all of [false, true]) {
      const { error } = await look(mixed, all);
      expect(error).toBeInstanceOf(PrivateAddressError);
      expect(error?.message).toBe(
        "erp.example resolves to 10.0.0.7 (private), a non-public address: refused (webhookTargets.allowPrivate)",
      );
    }
  });

  it("answers the checked addresses in the form asked for", async () => {
    const addresses = [
      { address: "93.184.215.14", family: 4 },
      { address: "2606:4700:4700::1111", family: 6 },
    ];
    expect(await look(addresses, true)).toEqual({ error: null, result: addresses });
    expect(await look(addresses, false)).toEqual({ error: null, result: "93.184.215.14" });
  });
});

describe("the retry's timing", () => {
  it("reads Retry-After as seconds or as an HTTP date, and nothing else", () => {
    const now = Date.parse("2026-11-29T10:00:00Z");
    expect(retryAfterMs("120", now)).toBe(120_000);
    expect(retryAfterMs(" 0 ", now)).toBe(0);
    expect(retryAfterMs("Sun, 29 Nov 2026 10:00:30 GMT", now)).toBe(30_000);
    expect(retryAfterMs("Sun, 29 Nov 2026 09:00:00 GMT", now)).toBe(0);
    for (const bad of [undefined, "", "-1", "1.5", "soon", "2026-11-29T10:00:30Z", "Sun, 99 Nov 2026 10:00:30 GMT"]) {
      expect(retryAfterMs(bad, now), String(bad)).toBeUndefined();
    }
  });

  test.prop([
    fc.integer({ min: 1, max: 10_000 }),
    fc.integer({ min: 1, max: 100_000 }),
    fc.integer({ min: 1, max: 60 }),
    fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
  ])("waits half to all of the doubled base, capped at retryMaxMs", (retryBaseMs, extra, attempt, random) => {
    const settings = { retryBaseMs, retryMaxMs: retryBaseMs + extra };
    const ceiling = Math.min(settings.retryMaxMs, retryBaseMs * 2 ** (attempt - 1));
    const wait = backoffMs(attempt, settings, random);
    expect(wait).toBeGreaterThanOrEqual(Math.floor(ceiling / 2));
    expect(wait).toBeLessThanOrEqual(ceiling);
    expect(backoffMs(attempt + 1, settings, random)).toBeGreaterThanOrEqual(wait);
  });
});
