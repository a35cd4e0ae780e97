// What the adapter's own tests import and read: products tagged with the import that wrote them,
// an import in chunks, a site read whole, and a child process running the store on a file.
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import type { CatalogStore, Product, Site } from "@catalog-kit/catalog-core";
import { loadSqlite } from "../../src/driver.ts";

/** Product `id` with `sku`, written by the import named `tag`. */
export function product(id: string, sku: string, tag: string): Product {
  return {
    id,
    sku,
    title: `${tag} ${id}`,
    available: true,
    featured_image: `https://img.example/${id}.png`,
    url: `https://shop.example/${id}`,
  };
}

/** Products `p<i>` with skus `s<i>` for `i` from `from` to `to - 1`, written by `tag`. */
export function numbered(from: number, to: number, tag: string): Product[] {
  return Array.from({ length: to - from }, (_, k) => product(`p${from + k}`, `s${from + k}`, tag));
}

export { importInChunks } from "@catalog-kit/catalog-core/testing";

/** Every product of a site, in id order, read page by page. */
export async function everything(store: CatalogStore, site: Site): Promise<Product[]> {
  const found: Product[] = [];
  for (let after: string | undefined; ; ) {
    const page = await store.list(site, after, 1000);
    found.push(...page);
    if (page.length < 1000) return found;
    after = page[page.length - 1]?.id;
  }
}

/** What imports into new sites left in the file at `path`, read without a store: numbers registered, products under no site's number. */
export function unpublished(path: string): { newSites: number; products: number } {
  const { DatabaseSync } = loadSqlite();
  const db = new DatabaseSync(path);
  try {
    const count = (sql: string) => (db.prepare(sql).get() as { n: number }).n;
    return {
      newSites: count("SELECT count(*) AS n FROM new_sites"),
      products: count("SELECT count(*) AS n FROM products WHERE site NOT IN (SELECT number FROM sites)"),
    };
  } finally {
    db.close();
  }
}

/** A child process running `test/support/child.ts` with `command`, and its output line by line. */
export interface Child {
  readonly process: ChildProcessWithoutNullStreams;
  /** Resolves with the first line of output that `accept` takes (rejects if the child ends first). */
  line(accept: (line: string) => boolean): Promise<string>;
  /** Resolves with the exit code, or the signal that ended it. */
  readonly exited: Promise<number | string>;
  /** Tells the child to start (it has opened its store and said "ready"). */
  go(): void;
}

const CHILD = new URL("./child.ts", import.meta.url).pathname;

/** Starts a child process on this Node.js running `child.ts` with `command` (JSON). */
export function startChild(command: object): Child {
  const child = spawn(process.execPath, ["--conditions=@catalog-kit/source", "--import", "tsx", CHILD], {
    stdio: ["pipe", "pipe", "pipe"],
  });
  child.stdin.write(`${JSON.stringify(command)}\n`);
  let stderr = "";
  child.stderr.on("data", (data: Buffer) => {
    stderr += data.toString();
  });
  const lines: string[] = [];
  const waiting: { accept: (line: string) => boolean; resolve: (line: string) => void }[] = [];
  createInterface({ input: child.stdout }).on("line", (text) => {
    lines.push(text);
    for (const [i, w] of waiting.entries()) {
      if (w.accept(text)) {
        waiting.splice(i, 1);
        w.resolve(text);
        return;
      }
    }
  });
  const exited = new Promise<number | string>((resolve) => {
    child.on("exit", (code, signal) => resolve(code ?? signal ?? "unknown"));
  });
  return {
    process: child,
    exited,
    go: () => child.stdin.end("go\n"),
    line(accept) {
      const seen = lines.find(accept);
      if (seen !== undefined) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        waiting.push({ accept, resolve });
        void exited.then((how) => reject(new Error(`the child ended (${how}) first: ${stderr}`)));
      });
    },
  };
}
