// A configuration file that is not JSON is refused naming the line and column of its first error,
// on every Node line: the place is found by scanning the text, and agrees with the offset (Node
// 20 and later) and the line and column (Node 22 and later) that JSON.parse's message gives.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../src/config.ts";
import { jsonErrorOffset, placeOf } from "../src/json-position.ts";

const CASES: readonly (readonly [string, string, number, number])[] = [
  ["a trailing comma", '{\n  "port": 3000,\n}\n', 3, 1],
  ["a misspelt literal", '{\n  "a": tru\n}', 2, 8],
  ["a missing comma", '{\n  "a": 1\n  "b": 2\n}', 3, 3],
  ["a premature end", '{\n  "a": [1, 2', 2, 13],
  ["an empty file", "", 1, 1],
  ["a control character in a string", '{"a": "x\u0001"}', 1, 9],
  ["text after the value", '{"a": 1}\n}', 2, 1],
  ["a single-quoted string", "{\r\n  'a': 1\r\n}", 2, 3],
  ["a bad escape", '["\\x"]', 1, 4],
  ["a number with a leading zero", "[01]", 1, 3],
];

describe("the first error of a JSON text", () => {
  it.each(CASES)("%s: line and column", (_, text, line, column) => {
    expect(JSON.parse.bind(null, text)).toThrow(SyntaxError);
    expect(placeOf(text, jsonErrorOffset(text) as number)).toEqual({ line, column });
  });

  it.each(CASES)("%s: where JSON.parse's message gives a place, the same one", (_, text) => {
    const offset = jsonErrorOffset(text) as number;
    let message = "";
    try {
      JSON.parse(text);
    } catch (error) {
      message = (error as Error).message;
    }
    const position = /at position (\d+)/.exec(message)?.[1];
    if (position !== undefined) expect(offset).toBe(Number(position));
    const [, line, column] = /\(line (\d+) column (\d+)\)/.exec(message) ?? [];
    if (line !== undefined) expect(placeOf(text, offset)).toEqual({ line: Number(line), column: Number(column) });
  });

  it("finds none in valid JSON, whitespace and nesting included", () => {
    for (const text of ['{"a": [1, -2.5e3, true, false, null, "\\u00e9\\n", {}], "b": {"c": []}}', " [ ] ", '"x"', "0"])
      expect(jsonErrorOffset(text)).toBeUndefined();
  });
});

describe("loadConfig", () => {
  let dir: string | undefined;
  afterAll(async () => {
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  it("names the line and column of a JSON syntax error", async () => {
    dir = await mkdtemp(join(tmpdir(), "catalog-config-"));
    const file = join(dir, "catalog.config.json");
    await writeFile(file, '{\n  "sites": [],\n  "tokens": [],\n}\n');
    const error = await loadConfig(file).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).issues).toEqual([expect.stringMatching(/^Not valid JSON at line 4, column 1: /)]);
  });
});
