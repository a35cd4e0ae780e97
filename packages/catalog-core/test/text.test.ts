// Text to bytes and back: lone surrogates are kept as WTF-8, whatever else the text holds
// (U+FFFD, which is also what Buffer.from writes for a lone surrogate, included).
import { fc, test } from "@fast-check/vitest";
import { describe, expect } from "vitest";
import { decodeText, toBuffers } from "../src/text.ts";

async function bytesOf(chunks: readonly string[]): Promise<Buffer> {
  const out: Buffer[] = [];
  // Copied, as every consumer copies what it keeps: the bytes of text are written over one buffer.
  for await (const buffer of toBuffers(chunks)) out.push(Buffer.from(buffer));
  return Buffer.concat(out);
}

const textArb = fc.array(
  fc.oneof(fc.string({ unit: "binary" }), fc.constantFrom("\ufffd", "\ud800", "\udc00", "é", "🌿", "a")),
);

describe("toBuffers", () => {
  test.prop([textArb])(
    "gives the UTF-8 of well-formed text, and bytes decodeText reads back otherwise",
    async (parts) => {
      const text = parts.join("");
      const bytes = await bytesOf(parts);
      if (text.isWellFormed()) expect(bytes).toEqual(Buffer.from(text, "utf8"));
      expect(decodeText(bytes)).toBe(text);
    },
  );

  test("U+FFFD is text like any other; a lone surrogate beside it is kept", async () => {
    expect(await bytesOf(["a\ufffdb"])).toEqual(Buffer.from("a\ufffdb", "utf8"));
    expect(decodeText(await bytesOf(["\ufffd\ud800\ufffd"]))).toBe("\ufffd\ud800\ufffd");
  });
});
