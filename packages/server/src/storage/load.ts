// The module a configuration's `"storage": { "adapter": ... }` names, found, imported and checked
// against the contract, and the options validated with its schema. The bundled adapters are
// modules like any other, each imported only when named, so that a server on memory storage
// never loads ioredis or pg; every problem is a configuration error at `storage.adapter` or at the
// option's key, given before the server listens (and by `catalog-kit config check`).
import { readFile, realpath, stat } from "node:fs/promises";
import { createRequire } from "node:module";
import { isAbsolute, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { exports as resolveExports } from "resolve.exports";
import { ConfigError, issueLine, type ValibotIssueFields, valibotMessage } from "../config-error.ts";
import type { StandardSchemaV1, StorageAdapterModule, StorageContext } from "./contract.ts";

/** A configuration's `storage`: the adapter's name, and its options (validated once loaded). */
export type StorageConfig = { readonly adapter: string } & { readonly [option: string]: unknown };

// By name; the names win over packages of the same name (a file beside the configuration is
// "./memory.js"). A bundled adapter is a literal import() so that a bundler keeps it a chunk of its own.
const BUNDLED: Readonly<Record<string, () => Promise<unknown>>> = {
  memory: () => import("./memory.ts"),
  redis: () => import("./redis.ts"),
  postgres: () => import("./postgres.ts"),
  sqlite: () => import("./sqlite.ts"),
};

/** The names of the adapters that come with the server. */
export const BUNDLED_ADAPTERS: readonly string[] = Object.keys(BUNDLED);

interface Problem {
  readonly problem: string;
}

const isProblem = (value: unknown): value is Problem =>
  typeof value === "object" && value !== null && "problem" in value;

// "./store.js", "../adapters/store.js", "/opt/store.js", "file:///opt/store.js" (and C:\ on Windows).
function isPath(name: string): boolean {
  return /^\.\.?(?:[\\/]|$)/.test(name) || name.startsWith("file:") || isAbsolute(name);
}

async function isDirectory(path: string): Promise<boolean | undefined> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return undefined;
  }
}

// The file an import() of a package's root or subpath gives: its exports under the conditions
// an import() in Node matches (patterns included), else its main, else index.js. Not require's
// resolution: that would take a package's "require" entry.
async function packageEntry(root: string, subpath: string): Promise<string | Problem> {
  let manifest: { name?: unknown; exports?: unknown; main?: unknown } = {};
  try {
    manifest = JSON.parse(await readFile(join(root, "package.json"), "utf8"));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT")
      return { problem: `Cannot read ${join(root, "package.json")}: ${(error as Error).message}` };
  }
  if (manifest.exports !== undefined && manifest.exports !== null) {
    let target: string | undefined;
    try {
      // The package's own name, whatever it is, so that the subpath is read as relative to it.
      [target] = resolveExports({ ...manifest, name: "_" }, subpath) ?? [];
    } catch {
      target = undefined;
    }
    if (target === undefined) {
      const what = subpath === "." ? "entry" : JSON.stringify(subpath);
      return { problem: `${join(root, "package.json")} exports no ${what} for import()` };
    }
    return resolve(root, target);
  }
  if (subpath !== ".") return join(root, subpath);
  return resolve(root, typeof manifest.main === "string" ? manifest.main : "index.js");
}

// "@acme/store/server" is the package "@acme/store" and its subpath "./server".
function packageAndSubpath(name: string): [string, string] {
  const parts = name.split("/");
  const length = name.startsWith("@") ? 2 : 1;
  const rest = parts.slice(length);
  return [parts.slice(0, length).join("/"), rest.length === 0 ? "." : `./${rest.join("/")}`];
}

// A package as the configuration file's folders would find it, then as the server's own would
// (an adapter installed beside the server, the configuration kept elsewhere).
async function packageFile(name: string, configDir: string): Promise<string | Problem> {
  const [pkg, subpath] = packageAndSubpath(name);
  // createRequire wants a file; any name in the folder gives that folder's lookup.
  const besideConfig = createRequire(join(configDir, "catalog.config.json")).resolve.paths(pkg) ?? [];
  const besideServer = createRequire(import.meta.url).resolve.paths(pkg) ?? [];
  for (const folder of new Set([...besideConfig, ...besideServer])) {
    const root = join(folder, pkg);
    if (await isDirectory(root)) return packageEntry(await realpath(root), subpath);
  }
  return {
    problem:
      `Cannot find the package ${JSON.stringify(pkg)} from ${configDir} or from the server ` +
      `(the bundled adapters are ${BUNDLED_ADAPTERS.join(", ")}; a file is named by its path, such as "./store.js")`,
  };
}

// A path is relative to the configuration file's folder; a folder is a package.
async function pathFile(name: string, configDir: string): Promise<string | Problem> {
  const path = name.startsWith("file:") ? fileURLToPath(name) : resolve(configDir, name);
  const folder = await isDirectory(path);
  if (folder === undefined) return { problem: `Cannot find ${JSON.stringify(name)}: there is no ${path}` };
  return folder ? packageEntry(path, ".") : path;
}

function isStandardSchema(schema: unknown): schema is StandardSchemaV1 {
  const standard = (schema as StandardSchemaV1 | undefined)?.["~standard"];
  return typeof standard === "object" && standard !== null && typeof standard.validate === "function";
}

// The module's own shape: a create function, and a Standard Schema if it has a schema.
function contractProblem(loaded: Record<string, unknown>): string | undefined {
  if (typeof loaded.create !== "function") {
    const names = Object.keys(loaded).sort();
    const exports = names.length === 0 ? "nothing" : names.join(", ");
    return `Is not a storage adapter module: it exports no create function (it exports ${exports})`;
  }
  if (loaded.schema !== undefined && !isStandardSchema(loaded.schema))
    return "Exports a schema that is not a Standard Schema v1 (no ~standard.validate): export a valibot, zod or arktype schema of the options, or none";
  return undefined;
}

/**
 * Imports the adapter module `name` names (a bundled name, a package name or a path) and checks
 * it against the contract; a problem is a `ConfigError` at `storage.adapter` in `source`.
 */
export async function loadAdapter(name: string, configDir: string, source: string): Promise<StorageAdapterModule> {
  const refuse = (problem: string) => new ConfigError(source, [issueLine(["storage", "adapter"], problem)]);
  const bundled = Object.hasOwn(BUNDLED, name) ? BUNDLED[name] : undefined;
  let file: string | undefined;
  if (bundled === undefined) {
    const found = isPath(name) ? await pathFile(name, configDir) : await packageFile(name, configDir);
    if (isProblem(found)) throw refuse(found.problem);
    file = found;
  }
  let loaded: Record<string, unknown>;
  try {
    loaded = (await (bundled?.() ?? import(pathToFileURL(file as string).href))) as Record<string, unknown>;
  } catch (error) {
    // Its own dependencies missing, a syntax error, a throw at its top level: the module's message says which.
    const where = file === undefined ? "" : ` (${file})`;
    throw refuse(`Cannot load ${JSON.stringify(name)}${where}: ${(error as Error).message ?? error}`);
  }
  const problem = contractProblem(loaded);
  if (problem !== undefined)
    throw refuse(`${JSON.stringify(name)}${file === undefined ? "" : ` (${file})`}: ${problem}`);
  return loaded as unknown as StorageAdapterModule;
}

function pathOf(issue: StandardSchemaV1.Issue): PropertyKey[] {
  return (issue.path ?? []).map((segment) => (typeof segment === "object" ? segment.key : segment));
}

/** A storage whose adapter was loaded and whose options its schema passed. */
export interface CheckedStorage {
  /** The storage as the configuration gives it: its adapter's name and the options as validated. */
  readonly storage: StorageConfig;
  /** The adapter's module. */
  readonly module: StorageAdapterModule;
  /** What `create` is given: the schema's output. */
  readonly options: unknown;
}

// Storages checkStorage gave, and what with: openStore creates from them without validating their
// options again, since a schema that transforms its input need not accept its own output.
const checked = new WeakMap<StorageConfig, CheckedStorage & { readonly configDir: string }>();

/**
 * Loads the storage's adapter and validates its options with the adapter's schema; the problems
 * are one `ConfigError` in `source`, each at its key (`storage.url: Must start with ...`).
 */
export async function checkStorage(
  storage: StorageConfig,
  context: StorageContext,
  source: string,
): Promise<CheckedStorage> {
  const { adapter, ...options } = storage;
  const module = await loadAdapter(adapter, context.configDir, source);
  let validated: unknown = options;
  if (module.schema !== undefined) {
    const standard = module.schema["~standard"];
    const result = await standard.validate(options);
    if (result.issues !== undefined) {
      // valibot's issues carry its own fields, so a valibot adapter's options read like the rest of the file.
      const message = (issue: StandardSchemaV1.Issue) =>
        standard.vendor === "valibot" ? valibotMessage(issue as ValibotIssueFields) : issue.message;
      throw new ConfigError(
        source,
        result.issues.map((issue) => issueLine(["storage", ...pathOf(issue)], message(issue))),
      );
    }
    validated = result.value;
  }
  if (typeof validated !== "object" || validated === null || Array.isArray(validated))
    throw new ConfigError(source, [
      issueLine(["storage"], `The schema of ${JSON.stringify(adapter)} gave no object of options`),
    ]);
  // The name is the configuration's, whatever the schema gave back under that key.
  const { adapter: _shadowed, ...rest } = validated as Record<string, unknown>;
  const result: CheckedStorage = { storage: { adapter, ...rest }, module, options: validated };
  checked.set(result.storage, { ...result, configDir: context.configDir });
  return result;
}

/** What `checkStorage` gave for `storage` with this `configDir`, if it did. */
export function checkedBefore(storage: StorageConfig, configDir: string): CheckedStorage | undefined {
  const known = checked.get(storage);
  return known?.configDir === configDir ? known : undefined;
}
