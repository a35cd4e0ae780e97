// A client that knows the API only from /openapi.json, as generated clients and schema-driven
// testers do: the demo site and a token behind a real server, requests built from the document's
// operations, and every answer checked against what the document declares for it (its status,
// its media type, its body under the declared schema, by a JSON Schema validator).
import { request } from "node:http";
import { createMemoryStore } from "@catalog-kit/adapter-memory";
import { createCatalog } from "@catalog-kit/catalog-core";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { createCatalogHandler, startServer } from "../../src/index.ts";

/** The site of `npm start`'s demo mode, which the document's examples name. */
export const DEMO_SITE = { siteId: "demo", siteType: "demo" } as const;
/** The token of the demo server: it covers the demo site only, its default site. */
export const DEMO_TOKEN = "demo-token-for-the-document";

/** A parameter of the document, as far as the checks read it. */
export interface Parameter {
  readonly name: string;
  readonly in: "query" | "path" | "header";
  readonly required?: boolean;
  readonly schema: Schema;
  readonly example?: unknown;
}
/** A parameter's schema: the keywords the document's parameters use. */
export interface Schema {
  readonly type?: string | readonly string[];
  readonly enum?: readonly unknown[];
  readonly pattern?: string;
  readonly minLength?: number;
  readonly minimum?: number;
  readonly maximum?: number;
}
/** A media type of a body or an answer: its schema and example. */
export interface Media {
  readonly schema?: Schema;
  readonly example?: unknown;
}
/** An operation of the document: its id, security, parameters, body and answers. */
export interface Operation {
  readonly operationId: string;
  readonly security?: readonly unknown[];
  readonly parameters?: readonly (Parameter | { readonly $ref: string })[];
  readonly requestBody?: { readonly content: Readonly<Record<string, Media>> };
  readonly responses: Readonly<Record<string, { readonly content?: Readonly<Record<string, Media>> }>>;
}
/** The document, as far as the checks read it. */
export interface Document {
  readonly paths: Readonly<Record<string, Readonly<Record<string, Operation>>>>;
  readonly components: { readonly parameters: Readonly<Record<string, Parameter>> };
}

/** A request as sent: the path with its query, headers and body. */
export interface Exchange {
  readonly method: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
}

/** An answer as received. */
export interface Answer {
  readonly status: number;
  readonly contentType: string | undefined;
  readonly text: string;
}

/** The demo configuration behind a real server; `close` stops both. */
export async function startDemoServer() {
  const catalog = createCatalog({ store: createMemoryStore(), sites: [DEMO_SITE] });
  const errors: unknown[] = [];
  const handler = createCatalogHandler(catalog, {
    tokens: [{ token: DEMO_TOKEN, sites: [DEMO_SITE] }],
    onError: (error) => errors.push(error),
  });
  const server = await startServer({ handler, port: 0, host: "127.0.0.1" });
  return {
    url: server.url,
    errors,
    async close() {
      await server.close();
      await catalog.close();
    },
  };
}

/**
 * Sends an exchange with node:http, the path exactly as given: fetch would resolve `.` and `..`
 * segments (percent-encoded ones too), which a product id may be.
 */
export function send(url: string, exchange: Exchange): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(new URL(url), { method: exchange.method, path: exchange.path, headers: exchange.headers });
    req.on("error", reject);
    req.on("response", (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("error", reject);
      res.on("end", () =>
        resolve({
          status: res.statusCode ?? 0,
          contentType: res.headers["content-type"],
          text: Buffer.concat(chunks).toString("utf8"),
        }),
      );
    });
    req.end(exchange.body);
  });
}

/** The operations of the document, each with its path and method. */
export function operationsOf(doc: Document) {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => ({ path, method, op })),
  );
}

/** The operation's parameters, references resolved. */
export function parametersOf(doc: Document, op: Operation): Parameter[] {
  return (op.parameters ?? []).map((param) =>
    "$ref" in param ? (doc.components.parameters[param.$ref.split("/").pop() ?? ""] as Parameter) : param,
  );
}

/** A media type a client sends for a document's key: a range such as `application/*+json` names one of its own. */
export const concrete = (media: string): string => media.replace("*", "vnd.example");

/** The request a client makes of an operation: the token, the path and query filled in, a body of a media type. */
export function exchangeOf(
  path: string,
  method: string,
  op: Operation,
  values: Readonly<Record<string, string | undefined>>,
  body?: { readonly media: string; readonly text: string },
  accept?: string,
): Exchange {
  let target = path;
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(values)) {
    if (value === undefined) continue;
    if (target.includes(`{${name}}`)) target = target.replace(`{${name}}`, encodeURIComponent(value));
    else query.append(name, value);
  }
  const headers: Record<string, string> = {};
  if (op.security === undefined) headers["x-service-access-token"] = DEMO_TOKEN;
  if (body !== undefined) headers["content-type"] = concrete(body.media);
  if (accept !== undefined) headers.accept = accept;
  const search = query.size === 0 ? "" : `?${query}`;
  return { method: method.toUpperCase(), path: target + search, headers, ...(body && { body: body.text }) };
}

const DOC_ID = "https://catalog-kit.example/openapi.json";
const pointer = (...parts: string[]) =>
  parts.map((part) => `/${encodeURIComponent(part.replaceAll("~", "~0").replaceAll("/", "~1"))}`).join("");

/**
 * A checker of answers against the document: it returns what is wrong with an answer of an
 * operation (an empty list when the document declares it), validating bodies with ajv.
 */
export function answerChecker(doc: Document): (path: string, method: string, answer: Answer) => string[] {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
  addFormats.default(ajv);
  ajv.addSchema(doc as object, DOC_ID);
  const compiled = new Map<string, ValidateFunction>();
  return (path, method, answer) => {
    const responses = doc.paths[path]?.[method]?.responses ?? {};
    const key = [String(answer.status), `${String(answer.status)[0]}XX`].find((k) => Object.hasOwn(responses, k));
    if (key === undefined) return [`status ${answer.status} is not declared`];
    const content = responses[key]?.content ?? {};
    const media = (answer.contentType ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
    if (!Object.hasOwn(content, media)) return [`${key}: media type "${media}" is not declared`];
    const at = pointer("paths", path, method, "responses", key, "content", media, "schema");
    let validate = compiled.get(at);
    if (validate === undefined) {
      validate = ajv.compile({ $ref: `${DOC_ID}#${at}` });
      compiled.set(at, validate);
    }
    let body: unknown = answer.text;
    if (media === "application/json" || media.endsWith("+json")) {
      try {
        body = JSON.parse(answer.text);
      } catch {
        return [`${key}: the ${media} body is not JSON`];
      }
    }
    if (validate(body)) return [];
    return (validate.errors ?? []).map((error) => `${key} ${media}: ${error.instancePath} ${error.message}`);
  };
}
