// The route table: which action each method takes on each resource, and the Allow header it
// implies.
import { CatalogError } from "@catalog-kit/catalog-core";
import type { ProblemEntry } from "./problem.ts";

/** Where every product endpoint lives. */
export const API_PREFIX = "/external/product/v1";

/** The resources the server knows; `product` carries its raw (still encoded) id. */
export type Resource =
  | { readonly kind: "single" | "bulk" | "csv" | "health" | "openapi" | "metrics" }
  | { readonly kind: "product"; readonly rawId: string };

/** What the handler does for a request: look a product up, delete it, import, or answer a fixed resource. */
export type Action = "get" | "delete" | "list" | "single" | "bulk" | "csv" | "health" | "openapi" | "metrics";

type Method = "GET" | "DELETE" | "POST";

// The one table of methods: it decides the action and, read again, the `Allow` header of a 405.
// GET and DELETE on `bulk` are the lookup of the product whose id is "bulk". HEAD is GET.
const ROUTES: Readonly<Record<Resource["kind"], Readonly<Partial<Record<Method, Action>>>>> = {
  single: { GET: "list", POST: "single" },
  bulk: { GET: "get", DELETE: "delete", POST: "bulk" },
  csv: { POST: "csv" },
  product: { GET: "get", DELETE: "delete" },
  health: { GET: "health" },
  openapi: { GET: "openapi" },
  metrics: { GET: "metrics" },
};

function allowOf(methods: readonly string[]): string {
  return methods.flatMap((method) => (method === "GET" ? ["GET", "HEAD"] : [method])).join(", ");
}

/** The `Allow` header of each resource, for 405 answers. */
export const ALLOW = Object.fromEntries(
  Object.entries(ROUTES).map(([kind, methods]) => [kind, allowOf(Object.keys(methods))]),
) as Readonly<Record<Resource["kind"], string>>;

/** The action of a method on a resource; `undefined` is 405. */
export function actionOf(kind: Resource["kind"], method: string | undefined): Action | undefined {
  const methods = ROUTES[kind] as Readonly<Record<string, Action>>;
  const name = method === "HEAD" ? "GET" : method;
  return name !== undefined && Object.hasOwn(methods, name) ? methods[name] : undefined;
}

const SINGLE: Resource = { kind: "single" };
const BULK: Resource = { kind: "bulk" };
const CSV: Resource = { kind: "csv" };
const HEALTH: Resource = { kind: "health" };
const OPENAPI: Resource = { kind: "openapi" };
const METRICS: Resource = { kind: "metrics" };
const PREFIX_LENGTH = API_PREFIX.length;

/** The path part of a request target: origin-form as is, absolute-form without scheme and authority. */
export function pathOf(target: string, queryAt: number): string {
  const end = queryAt === -1 ? target.length : queryAt;
  if (target.charCodeAt(0) === 47 /* / */) return queryAt === -1 ? target : target.slice(0, end);
  const scheme = target.indexOf("://");
  if (scheme === -1 || scheme > end) return target.slice(0, end);
  const slash = target.indexOf("/", scheme + 3);
  return slash === -1 || slash > end ? "/" : target.slice(slash, end);
}

/** Finds the resource of a path by plain string comparison; `undefined` is 404. */
export function matchRoute(path: string): Resource | undefined {
  if (path.startsWith(API_PREFIX)) {
    if (path.length === PREFIX_LENGTH) return SINGLE;
    if (path.charCodeAt(PREFIX_LENGTH) !== 47 /* / */) return undefined;
    const start = PREFIX_LENGTH + 1;
    const slash = path.indexOf("/", start);
    if (slash === -1) {
      if (start === path.length) return undefined;
      const rawId = path.slice(start);
      return rawId === "bulk" ? BULK : { kind: "product", rawId };
    }
    return path.length === start + 8 && path.endsWith("bulk/csv") ? CSV : undefined;
  }
  if (path === "/healthz") return HEALTH;
  if (path === "/openapi.json") return OPENAPI;
  if (path === "/metrics") return METRICS;
  return undefined;
}

function invalid(problems: readonly ProblemEntry[], what: string): CatalogError {
  return new CatalogError("VALIDATION_FAILED", what, { problems });
}

/** The product id of a path segment, percent-decoded exactly once. */
export function decodeProductId(raw: string): string {
  if (!raw.includes("%")) return raw;
  try {
    return decodeURIComponent(raw);
  } catch {
    const message = "Path parameter productId is not valid percent-encoding";
    throw invalid([{ parameter: "productId", message }], message);
  }
}

function decodeValue(value: string): string | undefined {
  if (!value.includes("%") && !value.includes("+")) return value;
  try {
    return decodeURIComponent(value.replaceAll("+", " "));
  } catch {
    return undefined;
  }
}

/**
 * Parses a query string (form encoding: `+` is a space) into the allowed parameters. Unknown,
 * repeated or badly encoded parameters are `VALIDATION_FAILED`, so a typo such as `dryrun=true`
 * can never go unnoticed.
 */
export function parseQuery(query: string, allowed: readonly string[]): Record<string, string> {
  const values: Record<string, string> = {};
  if (query === "") return values;
  let problems: ProblemEntry[] | undefined;
  let start = 0;
  while (start <= query.length) {
    let end = query.indexOf("&", start);
    if (end === -1) end = query.length;
    if (end > start) {
      const eq = query.indexOf("=", start);
      const split = eq === -1 || eq > end ? end : eq;
      const name = decodeValue(query.slice(start, split));
      const value = decodeValue(split === end ? "" : query.slice(split + 1, end));
      let problem: ProblemEntry | undefined;
      if (name === undefined) {
        problem = {
          parameter: query.slice(start, split),
          message: "Query parameter name is not valid percent-encoding",
        };
      } else if (!allowed.includes(name)) problem = { parameter: name, message: `Unknown query parameter "${name}"` };
      else if (value === undefined)
        problem = { parameter: name, message: `Query parameter ${name} is not valid percent-encoding` };
      else if (Object.hasOwn(values, name))
        problem = { parameter: name, message: `Query parameter ${name} is given more than once` };
      else values[name] = value;
      if (problem !== undefined) (problems ??= []).push(problem);
    }
    start = end + 1;
  }
  if (problems !== undefined) throw invalid(problems, "Invalid query parameters");
  return values;
}

/** The `VALIDATION_FAILED` error of one query parameter. */
export function invalidQuery(parameter: string, message: string): CatalogError {
  return invalid([{ parameter, message }], message);
}

/** Reads a `true`/`false` query flag (absent is false). */
export function parseFlag(name: string, value: string | undefined): boolean {
  if (value === undefined || value === "false") return false;
  if (value === "true") return true;
  throw invalidQuery(name, `Query parameter ${name} must be true or false`);
}
