// What an operation of the route table is: as written (its action, token, query parameters,
// bodies, exports, serving function and description), the forms its row implies, worked out once
// when the table is built, and which of them a request takes.
import type { IncomingMessage } from "node:http";
import type { Scope, StreamFormat } from "@catalog-kit/catalog-core";
import { mediaType, requireJson } from "./body.ts";
import type { Format, RequestContext } from "./context.ts";
import type { RawExampleName } from "./openapi-examples.ts";
import type { QueryParam } from "./query-params.ts";
import type { Action } from "./routes.ts";

/** The limits /openapi.json publishes, which some descriptions quote. */
export interface PublishedLimits {
  readonly maxProductsPerRequest: number;
  readonly maxStreamBytes: number;
  readonly maxProductsPerStream: number;
}

/** What /openapi.json says of an operation, besides what the rest of its row implies. */
export interface OperationDoc {
  readonly operationId: string;
  readonly summary: string;
  /** What it does; a function of the published limits when it quotes them. */
  readonly description: string | ((limits: PublishedLimits) => string);
  readonly tag: "Import" | "Products" | "Service" | "Admin";
  /** Its successful answer: JSON, with an example; an export's text, with an example of each format. */
  readonly answer: {
    readonly description: string;
    readonly schema: object;
    readonly example?: unknown;
    /** Its status when not 200 (201: made). */
    readonly status?: 201;
    /** A text answer's example by media type, when not the stream formats' product files. */
    readonly texts?: Readonly<Record<string, string>>;
    /** Its headers besides `X-Request-Id`, as OpenAPI header objects. */
    readonly headers?: Readonly<Record<string, object>>;
  };
  /** The problems it may answer, by status, when not those of an operation on products (the admin API's). */
  readonly problems?: Readonly<Record<string, string>>;
  /** Its path parameters' OpenAPI objects, when not a product id. */
  readonly pathParams?: readonly object[];
  /** A JSON body: its schema among the components, and an example; `patch`: a JSON Merge Patch. */
  readonly request?: { readonly schema: string; readonly example: unknown; readonly patch?: boolean };
  /**
   * An operation on one product, whose answers carry its `ETag`: `read` takes `If-None-Match`
   * (a 304), `write` takes `If-Match` (a 412).
   */
  readonly conditional?: "read" | "write";
  /** Whether it asks the storage, and so may answer 503. */
  readonly storage: boolean;
}

/** A raw body an import takes instead of a JSON envelope, streamed. */
export interface RawBody {
  /** Its media types, each with the stream format it is read as. */
  readonly types: Readonly<Record<string, StreamFormat>>;
  /** What it is, for /openapi.json. */
  readonly what: string;
  /** The example /openapi.json gives of a format, when not the format's plain one. */
  readonly examples?: Readonly<Partial<Record<StreamFormat, RawExampleName>>>;
  /** The example of a media type whose documents differ from the rest of its format's (Atom among the XML feeds). */
  readonly typeExamples?: Readonly<Record<string, RawExampleName>>;
}

/** The field of an import's JSON envelope that holds the products. */
export type EnvelopeField = "product" | "products" | "csvContent";

/** One operation of the route table, as written. */
export interface OperationSpec {
  /** Its name in the access log and the metrics. */
  readonly action: Action;
  /** Whether it needs an access token: every product operation does, the service's own ones do not. */
  readonly token: boolean;
  /** The scope its token must have (403 `FORBIDDEN` naming it otherwise); none for operations without a token. */
  readonly scope?: Scope;
  /** Its query parameters; absent, the query is not read at all. */
  readonly query?: readonly QueryParam[];
  /** An import's body: the envelope field that holds the products, and the raw body it takes instead. */
  readonly body?: { readonly field: EnvelopeField; readonly raw?: RawBody };
  /**
   * The exports a list answers instead of a page, by Accept, and the query parameters they take;
   * with `only`, the operation answers nothing else, and that format when Accept names none.
   */
  readonly exports?: {
    readonly types: Readonly<Record<string, StreamFormat>>;
    readonly query: readonly QueryParam[];
    readonly only?: StreamFormat;
  };
  /**
   * Its status for a site or product that is not there, when not the handler's `notFoundStatus`
   * (which keeps the spec's 400 for the product endpoints): the admin API's resources answer 404.
   */
  readonly notFoundStatus?: 404;
  /** Answers the request, or throws an error that becomes its problem body. */
  readonly serve: (ctx: RequestContext) => Promise<void>;
  /** Absent: the operation is not published. */
  readonly doc?: OperationDoc;
}

/** A form of an operation: the format it deals in, and its query's allowlist (`undefined`: the query is not read). */
export interface Form {
  readonly format: Format;
  readonly query: readonly string[] | undefined;
}

/** An operation with the forms its row implies. */
export interface Operation extends OperationSpec {
  /** The JSON form (an envelope, a page, or what the operation does when it offers no choice), or an export-only operation's default. */
  readonly plain: Form;
  /** The other forms by media type: of a raw body (Content-Type), or of an answer (Accept). */
  readonly forms: ReadonlyMap<string, Form>;
  /** The media types a body may have besides JSON, as a 415 names them (`, a or b`). */
  readonly alternatives: string;
}

const names = (params: readonly QueryParam[] | undefined) => params?.map((param) => param.name);

/** Works out the forms of an operation from its row; a Map, so that no media type finds an inherited key. */
export function operation(spec: OperationSpec): Operation {
  const plain: Form = { format: spec.exports?.only ?? "json", query: names(spec.query) };
  const forms = new Map<string, Form>();
  // Generic clients send an operation's query parameters whatever the body's media type: every
  // form of a body takes them all.
  const raw = spec.body?.raw;
  if (raw !== undefined) {
    for (const [type, format] of Object.entries(raw.types)) forms.set(type, { format, query: plain.query });
  }
  if (spec.exports !== undefined) {
    if (spec.exports.only === undefined) forms.set("application/json", plain);
    const query = names(spec.exports.query);
    for (const [type, format] of Object.entries(spec.exports.types)) forms.set(type, { format, query });
  }
  const types = Object.keys(raw?.types ?? {});
  const others = types.slice(0, -1).map((type) => `, ${type}`);
  const alternatives = types.length === 0 ? "" : `${others.join("")} or ${types.at(-1)}`;
  return { ...spec, plain, forms, alternatives };
}

// The first media type of Accept that the operation offers, in the order given (quality values
// are not weighed); the plain form when none is named, or only `*/*`.
function accepted(operation: Operation, accept: string | undefined): Form {
  for (const part of (accept ?? "").split(",")) {
    const type = part.split(";", 1)[0]?.trim().toLowerCase() ?? "";
    const form = operation.forms.get(type);
    if (form !== undefined) return form;
  }
  return operation.plain;
}

/**
 * The form a request takes: an import's by its Content-Type (a raw body it takes, else a JSON
 * envelope, else `UNSUPPORTED_MEDIA_TYPE`), a list's by its Accept (an export, else a page).
 */
export function formOf(operation: Operation, req: IncomingMessage): Form {
  if (operation.body !== undefined) {
    const contentType = req.headers["content-type"];
    const type = mediaType(contentType);
    const raw = type === undefined ? undefined : operation.forms.get(type);
    if (raw !== undefined) return raw;
    requireJson(contentType, operation.alternatives);
    return operation.plain;
  }
  return operation.exports === undefined ? operation.plain : accepted(operation, req.headers.accept);
}
