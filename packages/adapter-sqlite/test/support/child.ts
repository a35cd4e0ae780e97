// A process of its own on a store's file, run by the tests of two processes and of a killed
// process. It reads a command (one line of JSON) on stdin, opens the store, says "ready", waits
// for "go", and says what it does on stdout with synchronous writes: a commit blocks this
// thread, and a line written before it must reach the parent before the commit ends.
import { writeSync } from "node:fs";
import { createInterface } from "node:readline";
import { createSqliteStore } from "@catalog-kit/adapter-sqlite";
import type { Product, Site } from "@catalog-kit/catalog-core";
import { importInChunks, numbered } from "./fixtures.ts";

/** Imports to run one after another, and a key to claim once they are done. */
export interface ImportsCommand {
  readonly kind: "imports";
  readonly path: string;
  readonly imports: readonly { site: Site; items: Product[]; replace: boolean; chunk: number }[];
  readonly claim?: { site: Site; key: string };
}

/**
 * An import of `first` products acknowledged (none when 0: the site has no number then), then one
 * of `second` replacing them, said step by step.
 */
export interface CrashCommand {
  readonly kind: "crash";
  readonly path: string;
  readonly site: Site;
  readonly first: number;
  readonly second: number;
}

const say = (line: string) => writeSync(1, `${line}\n`);
const pause = () => new Promise<void>((resolve) => setTimeout(resolve, Math.random() * 3));

const input = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
const command = JSON.parse((await input.next()).value as string) as ImportsCommand | CrashCommand;
const store = createSqliteStore({ path: command.path });
say("ready");
await input.next();

if (command.kind === "imports") {
  for (const [i, { site, items, replace, chunk }] of command.imports.entries()) {
    const result = await importInChunks(store, site, items, { replace, chunk, pause });
    say(`result ${i} ${JSON.stringify(result)}`);
  }
  if (command.claim) say(`claim ${(await store.claimKey(command.claim.site, command.claim.key, 60_000)).state}`);
} else {
  const { site, first, second } = command;
  const done = first > 0 ? await importInChunks(store, site, numbered(0, first, "first"), { chunk: 5000 }) : "none";
  say(`acknowledged ${JSON.stringify(done)}`);
  const staged = await store.beginImport(site, { dryRun: false, replace: true });
  const chunk = 5000;
  for (let start = 0; start < second; start += chunk) {
    const items = numbered(start, Math.min(start + chunk, second), "second");
    await staged.add(
      items,
      items.map((_, k) => start + k),
    );
    if (start === chunk * 4) say("staging");
  }
  say("committing");
  const result = await staged.commit();
  say(`committed ${JSON.stringify(result)}`);
  // Waits to be killed, so that the kill after the answer is of a process that holds the file open.
  await new Promise((resolve) => setTimeout(resolve, 60_000));
}
await store.close();
