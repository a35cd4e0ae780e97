// Node's built-in `node:sqlite`, loaded when a store opens, not when this package is imported:
// an application that imports the package on a Node.js without the module fails only if it opens one.
type SqliteModule = typeof import("node:sqlite");

let loaded: SqliteModule | undefined;

// Node.js 22 and 23 print "ExperimentalWarning: SQLite is an experimental feature" when the module
// first loads, on the standard error of every application that opens a store, which can do nothing
// about it. That one warning is dropped while the module loads; every other warning passes.
function quietly<T>(load: () => T): T {
  const emit = process.emitWarning;
  process.emitWarning = function (this: NodeJS.Process, warning: string | Error, ...rest: unknown[]): void {
    const type = typeof rest[0] === "string" ? rest[0] : (rest[0] as { type?: unknown } | undefined)?.type;
    const text = typeof warning === "string" ? warning : warning.message;
    if (type !== "ExperimentalWarning" || !text.startsWith("SQLite is an experimental feature")) {
      (emit as (...args: unknown[]) => void).call(this, warning, ...rest);
    }
  } as typeof process.emitWarning;
  try {
    return load();
  } finally {
    process.emitWarning = emit;
  }
}

/** `node:sqlite`, or a TypeError naming the Node.js versions that have it. */
export function loadSqlite(): SqliteModule {
  loaded ??= quietly(() => process.getBuiltinModule?.("node:sqlite") as SqliteModule | undefined);
  if (loaded?.DatabaseSync === undefined) {
    throw new TypeError(
      `@catalog-kit/adapter-sqlite needs node:sqlite, which Node.js ${process.versions.node} does not have: use Node.js 22.13 or later`,
    );
  }
  return loaded;
}
