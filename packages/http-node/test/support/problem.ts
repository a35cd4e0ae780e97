// The problem body every refusal answers with (RFC 9457, with the catalog's code, errors and
// errorCount), checked in full; returned for the test's own checks.
import { expect } from "vitest";

/** Checks that `response` is a problem with this status and code, and returns its body. */
export async function problemOf(response: Response, status: number, code: string) {
  expect(response.status).toBe(status);
  expect(response.headers.get("content-type")).toBe("application/problem+json");
  const body = (await response.json()) as Record<string, unknown>;
  expect(body).toMatchObject({ status, code, type: expect.stringContaining(":problem:"), title: expect.any(String) });
  expect(typeof body.detail).toBe("string");
  expect(Array.isArray(body.errors)).toBe(true);
  expect(body.errorCount).toBeGreaterThanOrEqual((body.errors as unknown[]).length);
  return body as {
    detail: string;
    errors: Record<string, unknown>[];
    errorCount: number;
    limit?: number;
    received?: number;
  };
}
