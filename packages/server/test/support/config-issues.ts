// The issues a configuration is refused with, each at its key, for the configuration tests.
import { expect } from "vitest";
import { ConfigError, parseConfig } from "../../src/config.ts";

/** The issues `parseConfig(input)` refuses `input` with; fails the test when it takes it. */
export function configIssues(input: unknown): readonly string[] {
  try {
    parseConfig(input);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).issues;
  }
  throw new Error("expected a ConfigError");
}
