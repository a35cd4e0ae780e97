// What a test asserts of the `importId` an import's summary carries: an id as the history makes
// them (12 hex digits of its start, 16 random ones), and a summary without it, to compare two.
import { expect } from "vitest";

/** Matches an import's id. */
export const IMPORT_ID = expect.stringMatching(/^[0-9a-f]{28}$/);

/** The summary without its `importId`, checked to be one: two imports' ids always differ. */
export function withoutId<T extends { importId?: string }>(summary: T): Omit<T, "importId"> {
  const { importId, ...rest } = summary;
  expect(importId).toEqual(IMPORT_ID);
  return rest;
}
