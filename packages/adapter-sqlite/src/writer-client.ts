// The main thread's side of the writer thread: each write of the store is a message to it, and a
// promise answered by its reply, so the main thread goes on serving while a commit runs there.
// The thread starts with the first write (a store that only reads never starts one); if it stops
// (a fault of its own, or terminated), every call it had not answered fails, the imports staged on
// it are lost with their staging, and the next write starts another thread: one fault does not
// leave a long-running server unable to write until it restarts.
import { Worker } from "node:worker_threads";
import { CatalogError, type ErrorCode } from "@catalog-kit/catalog-core";
import { closedError, unavailable } from "./errors.ts";
import type { WriterAnswers, WriterFailure, WriterOptions, WriterReply, WriterRequest } from "./protocol.ts";

// From the repository's sources (TypeScript, run by a Node.js that strips types, or a loader the
// process was started with, which a worker inherits) the writer's source, resolving the workspace
// packages to their sources as the process does; from the built package, the built writer.
const FROM_SOURCE = import.meta.url.endsWith(".ts");
const WRITER = new URL(FROM_SOURCE ? "./writer.ts" : "./writer.js", import.meta.url);
const EXEC_ARGV = FROM_SOURCE ? [...process.execArgv, "--conditions=@catalog-kit/source"] : undefined;

// The writer thread's heap, bounded: V8 lets an unbounded heap grow lazily, and the garbage of
// the products cloned into the thread took it to about 100 MB at 300,000 products (a streamed
// import's peak RSS 290-320 MB, against 236-256 MB so bounded). It holds one slice of an `add`
// at a time (at most about 90 MB of the largest products), or a commit's conflicts. A slice's
// strings die with its message: a young space of 4 MB collects them as well as one of 8 (2 MB
// did too, for more of the thread's CPU in collections).
const WRITER_HEAP = { maxYoungGenerationSizeMb: 4, maxOldGenerationSizeMb: 256 };

interface Pending {
  readonly what: string;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
}

type Op = WriterRequest["op"];

function rebuilt({ code, message, cause }: WriterFailure): CatalogError {
  const original = cause === undefined ? undefined : Object.assign(new Error(String(cause.message)), cause);
  return new CatalogError(code as ErrorCode, message, { cause: original });
}

/** The writer thread of one store, started on demand, and the calls it has not answered yet. */
export class WriterClient {
  private readonly options: WriterOptions;
  private worker: Worker | undefined;
  private generation = 0;
  private lastId = 0;
  private readonly pending = new Map<number, Pending>();
  private closing: Promise<void> | undefined;

  constructor(options: WriterOptions) {
    this.options = options;
  }

  /** The running thread, for tests that stop it; `undefined` before the first write. */
  get thread(): Worker | undefined {
    return this.worker;
  }

  /**
   * Sends `request`, answered by the thread's reply; rejects with `STORAGE_UNAVAILABLE` once the
   * store is closed, when the thread stops first, and when `generation` (the thread an import
   * was begun on) is not the running one: that import's staging went with its thread.
   */
  call<O extends Op>(
    request: Extract<WriterRequest, { op: O }>,
    what: string,
    generation?: number,
  ): Promise<WriterAnswers[O]> {
    if (this.closing !== undefined) return Promise.reject(unavailable(closedError(), what, "nothing written"));
    const running = this.start();
    if (generation !== undefined && generation !== running) {
      const lost = new Error("the writer thread that staged the import stopped, and its staging with it");
      return Promise.reject(unavailable(lost, what, "nothing written"));
    }
    return this.send(request, what) as Promise<WriterAnswers[O]>;
  }

  /**
   * The generation of the running thread, started if none runs (but never once closing: the
   * calls that follow reject): an import's calls go to the thread it was begun on alone.
   */
  start(): number {
    if (this.worker !== undefined || this.closing !== undefined) return this.generation;
    const worker = new Worker(WRITER, { workerData: this.options, execArgv: EXEC_ARGV, resourceLimits: WRITER_HEAP });
    // Held only while a call waits for it: an idle store keeps no process alive (as a file it
    // has open does not), and a process awaiting a commit does not end under it.
    worker.unref();
    let fault: unknown;
    worker.on("message", (reply: WriterReply) => this.answer(reply));
    worker.on("error", (error) => {
      fault = error;
    });
    worker.on("exit", (code) => this.stopped(worker, fault ?? `it exited with code ${code}`));
    this.worker = worker;
    return ++this.generation;
  }

  private send(request: WriterRequest, what: string): Promise<unknown> {
    const worker = this.worker;
    if (worker === undefined) return Promise.reject(unavailable(closedError(), what, "nothing written"));
    const id = ++this.lastId;
    return new Promise((resolve, reject) => {
      try {
        worker.postMessage({ id, request });
      } catch (error) {
        reject(unavailable(error, what, "nothing written"));
        return;
      }
      this.pending.set(id, { what, resolve, reject });
      if (this.pending.size === 1) worker.ref();
    });
  }

  private answer(reply: WriterReply): void {
    const waiting = this.pending.get(reply.id);
    if (waiting === undefined) return;
    this.pending.delete(reply.id);
    if (this.pending.size === 0 && this.closing === undefined) this.worker?.unref();
    if (reply.ok) waiting.resolve(reply.value);
    else waiting.reject(rebuilt(reply.failure));
  }

  // Every call the thread had not answered fails. A commit among them committed whole or not at
  // all (SQLite rolls back a transaction its connection never committed), which is all it can say.
  private stopped(worker: Worker, fault: unknown): void {
    if (this.worker !== worker) return;
    this.worker = undefined;
    const why = fault instanceof Error ? fault.message : String(fault);
    for (const { what, reject } of this.pending.values()) {
      const error = new CatalogError(
        "STORAGE_UNAVAILABLE",
        `SQLite ${what} failed: the store's writer thread stopped (${why}); a commit it was running either committed whole or wrote nothing`,
        { cause: fault instanceof Error ? fault : undefined },
      );
      reject(error);
    }
    this.pending.clear();
  }

  /** Lets the thread answer what it was sent, closes its connection and waits for it to end; safe twice. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      const worker = this.worker;
      if (worker === undefined) return;
      const ended = new Promise((resolve) => worker.once("exit", resolve));
      // Held until it ends: a process whose last step is to await `close` must not end first.
      worker.ref();
      await this.send({ op: "close" }, "close").catch(() => undefined);
      await ended;
    })();
    return this.closing;
  }
}

/** The writer of each store, for tests that stop its thread. */
export const writers = new WeakMap<object, WriterClient>();
