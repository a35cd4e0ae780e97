// What a storage adapter module gives the standalone server, and what the server gives it back.
// The Standard Schema interface is copied rather than depended on, as its authors intend: a few
// types, so that valibot, zod and arktype schemas (and a hand-written one) all fit without the
// server's declarations naming a package of types.
import type { CatalogStore } from "@catalog-kit/catalog-core";

/** The Standard Schema v1 interface (https://standardschema.dev): what the server asks of an adapter's `schema`. */
export interface StandardSchemaV1<Input = unknown, Output = Input> {
  /** The standard's properties, under a key no schema library uses for anything else. */
  readonly "~standard": StandardSchemaV1.Props<Input, Output>;
}

/** The parts of a Standard Schema v1. */
export declare namespace StandardSchemaV1 {
  /** What every Standard Schema carries. */
  export interface Props<Input = unknown, Output = Input> {
    /** The version of the standard: 1. */
    readonly version: 1;
    /** The library that made the schema ("valibot", "zod", "arktype", ...). */
    readonly vendor: string;
    /** Validates a value: its output (defaults applied, values transformed), or its issues. */
    readonly validate: (value: unknown) => Result<Output> | Promise<Result<Output>>;
    /** The input and output types, for inference only. */
    readonly types?: Types<Input, Output> | undefined;
  }
  /** A validation's outcome. */
  export type Result<Output> = SuccessResult<Output> | FailureResult;
  /** A value that passed, as the schema outputs it. */
  export interface SuccessResult<Output> {
    /** The output. */
    readonly value: Output;
    /** None. */
    readonly issues?: undefined;
  }
  /** A value that did not pass. */
  export interface FailureResult {
    /** At least one issue. */
    readonly issues: readonly Issue[];
  }
  /** One problem, where it is. */
  export interface Issue {
    /** What is wrong. */
    readonly message: string;
    /** The keys from the validated value down to the problem; none for the value itself. */
    readonly path?: readonly (PropertyKey | PathSegment)[] | undefined;
  }
  /** A key of an issue's path, as an object. */
  export interface PathSegment {
    /** The key. */
    readonly key: PropertyKey;
  }
  /** The types a schema takes and gives. */
  export interface Types<Input = unknown, Output = Input> {
    /** What it validates. */
    readonly input: Input;
    /** What it gives. */
    readonly output: Output;
  }
}

/** What the server gives an adapter's `create`, beside its options. */
export interface StorageContext {
  /**
   * The absolute directory of the configuration file (the working directory when there is none):
   * a relative path among the options means a path beside the configuration file, wherever the
   * server was started from.
   */
  readonly configDir: string;
}

/**
 * The module that `"storage": { "adapter": "<package name or path>", ... }` names: a storage
 * adapter for the standalone server. The server imports it, validates the options (every key of
 * `"storage"` but `adapter`) with `schema` when there is one, and calls `create` with the
 * validated options once, at start-up. The bundled adapters (`memory`, `redis`, `postgres`) are
 * such modules too.
 *
 * @typeParam Options - the options `create` takes: the output of `schema`.
 */
export interface StorageAdapterModule<Options = Record<string, unknown>> {
  /** Opens the store; a rejection stops the server's start, its message printed. */
  readonly create: (options: Options, context: StorageContext) => CatalogStore | Promise<CatalogStore>;
  /**
   * A Standard Schema v1 of the options (valibot, zod, arktype, ...): its issues are reported as
   * `storage.<key>: <message>` before the server starts, and its output (defaults applied) is what
   * `create` gets and `catalog-kit config check` prints. Without one, `create` gets the options as
   * written.
   */
  readonly schema?: StandardSchemaV1<unknown, Options>;
}
