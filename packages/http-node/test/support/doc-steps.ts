/** One runnable command of a Markdown document, with the answer the document shows for it. */
export interface DocStep {
  readonly command: string;
  /** The JSON block that follows the command's block, if any. */
  readonly expected: unknown;
  /** 200, or the `status` of an expected problem body. */
  readonly status: number;
}

/**
 * The `curl` commands of the ```sh blocks of a document (other languages are shown, not run),
 * each with the ```json block that follows its block, if any.
 */
export function docSteps(markdown: string): DocStep[] {
  const blocks = [...markdown.matchAll(/^```(\w+)\n([\s\S]*?)^```$/gm)].map(([, lang, body]) => ({
    lang,
    body: body as string,
  }));
  const steps: DocStep[] = [];
  blocks.forEach(({ lang, body }, index) => {
    if (lang !== "sh") return;
    const next = blocks[index + 1];
    const expected = next?.lang === "json" ? JSON.parse(next.body) : undefined;
    const stated = (expected as { status?: unknown } | undefined)?.status;
    for (const command of body.replace(/\\\n\s*/g, " ").split("\n")) {
      if (command.startsWith("curl "))
        steps.push({ command, expected, status: typeof stated === "number" ? stated : 200 });
    }
  });
  return steps;
}
