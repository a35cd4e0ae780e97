// The request target: its path (origin- or absolute-form), a product id taken from it, and its
// query string read against an operation's allowlist.
import { CatalogError } from "@catalog-kit/catalog-core";
import type { ProblemEntry } from "./problem.ts";

/** The path part of a request target: origin-form as is, absolute-form without scheme and authority. */
export function pathOf(target: string, queryAt: number): string {
  const end = queryAt === -1 ? target.length : queryAt;
  if (target.charCodeAt(0) === 47 /* / */) return queryAt === -1 ? target : target.slice(0, end);
  const scheme = target.indexOf("://");
  if (scheme === -1 || scheme > end) return target.slice(0, end);
  const slash = target.indexOf("/", scheme + 3);
  return slash === -1 || slash > end ? "/" : target.slice(slash, end);
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

/** Reads a page's `limit` query parameter: absent, or an integer the catalog then checks against `max`. */
export function parseLimit(value: string | undefined, max: number): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d{1,7}$/.test(value))
    throw invalidQuery("limit", `Query parameter limit must be an integer from 1 to ${max}`);
  return Number(value);
}

/** Reads a `true`/`false` query flag (absent is false). */
export function parseFlag(name: string, value: string | undefined): boolean {
  if (value === undefined || value === "false") return false;
  if (value === "true") return true;
  throw invalidQuery(name, `Query parameter ${name} must be true or false`);
}
