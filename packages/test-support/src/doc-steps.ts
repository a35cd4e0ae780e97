import { gzipSync } from "node:zlib";

/** One runnable command of a Markdown document, with the answer the document shows for it. */
export interface DocStep {
  readonly command: string;
  /** The JSON block that follows the command's block, if any. */
  readonly expected: unknown;
  /** 200, or the `status` of an expected problem body. */
  readonly status: number;
  /**
   * The files the document shows before the command, by name, for `--data-binary @name`; `-` is
   * the standard input of a command piped from `gzip -c name`, that file compressed.
   */
  readonly files: Readonly<Record<string, string | Uint8Array>>;
}

/**
 * The `curl` commands of the ```sh blocks of a document (other languages are shown, not run),
 * each with the ```json block that follows its block, if any; a `gzip -c name | curl ...` line is
 * its curl, given the file compressed as `-`. A block whose info string names a file after its
 * language (```csv products.csv) is that file's content.
 */
export function docSteps(markdown: string): DocStep[] {
  const blocks = [...markdown.matchAll(/^```(\w+)(?: ([\w.-]+))?\n([\s\S]*?)^```$/gm)].map(([, lang, file, body]) => ({
    lang,
    file,
    body: body as string,
  }));
  const steps: DocStep[] = [];
  const files: Record<string, string | Uint8Array> = {};
  blocks.forEach(({ lang, file, body }, index) => {
    if (file !== undefined) files[file] = body;
    if (lang !== "sh") return;
    const next = blocks[index + 1];
    const expected = next?.lang === "json" ? JSON.parse(next.body) : undefined;
    const stated = (expected as { status?: unknown } | undefined)?.status;
    const status = typeof stated === "number" ? stated : 200;
    for (const line of body.replace(/\\\n\s*/g, " ").split("\n")) {
      const [, piped, command = line] = /^gzip -c ([\w.-]+) \| (curl .*)$/.exec(line) ?? [];
      if (!command.startsWith("curl ")) continue;
      if (piped === undefined) steps.push({ command, expected, status, files: { ...files } });
      else {
        const file = files[piped];
        if (file === undefined) throw new Error(`No file ${piped} shown before: ${line}`);
        steps.push({ command, expected, status, files: { ...files, "-": gzipSync(file) } });
      }
    }
  });
  return steps;
}

/**
 * The answer a document shows, as it must come back for the request `requestId`: a problem's
 * `instance` names the request, and an import's `importId` is new, on every run, so the shown
 * ones only give their form (an `importId` of 28 hex digits stands for the one `actual` carries).
 */
export function expectedFor(expected: unknown, requestId: string | null, actual?: unknown): unknown {
  if (typeof expected !== "object" || expected === null) return expected;
  let shown = expected as Record<string, unknown>;
  const { instance, importId } = shown;
  if (typeof instance === "string" && /^urn:catalog-kit:request:[\w.~:-]+$/.test(instance))
    shown = { ...shown, instance: `urn:catalog-kit:request:${requestId}` };
  const answered = (actual as { importId?: unknown } | undefined)?.importId;
  const id = /^[0-9a-f]{28}$/;
  if (typeof importId === "string" && id.test(importId) && typeof answered === "string" && id.test(answered))
    shown = { ...shown, importId: answered };
  return shown;
}

/**
 * `text` with each import id (28 hex digits) replaced by the one `shown` has in its place, so
 * that a document may show ids of its own: the n-th id of the text takes the n-th of `shown`.
 */
export function withShownImportIds(text: string, shown: string): string {
  const ids = shown.match(/\b[0-9a-f]{28}\b/g) ?? [];
  let n = 0;
  return text.replace(/\b[0-9a-f]{28}\b/g, (id) => ids[n++] ?? id);
}
