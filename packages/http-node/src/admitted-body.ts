// A streamed body that asks for its admission when it is first read, not when its request
// arrives: the catalog reads a keyed stream only once its idempotency key is claimed, so a key in
// use is answered at once instead of after a wait for a place to read the body.
import type { IncomingMessage } from "node:http";
import type { Admission, Release } from "./admission.ts";
import { type BodyStream, ClientGoneError } from "./body-stream.ts";

/** How `admittedBody` reserves its place: who reads, how many bytes it counts, and its request. */
export interface BodyPlace {
  readonly admission: Admission;
  readonly owner: object;
  readonly bytes: number;
  readonly req: IncomingMessage;
}

/**
 * The body `open` makes, opened once `place` is admitted on its first read; `close()` stops
 * reading and gives the place back, whether the body was read, waited for, or never asked for.
 */
export function admittedBody(place: BodyPlace, open: () => BodyStream): BodyStream {
  let body: BodyStream | undefined;
  let release: Release | undefined;
  let opening: Promise<AsyncIterator<Buffer>> | undefined;
  let closed = false;

  async function start(): Promise<AsyncIterator<Buffer>> {
    const granted = await place.admission.admit(place.owner, place.bytes, place.req);
    if (closed) {
      granted();
      throw new ClientGoneError("The body was given up while it waited to be read");
    }
    release = granted;
    body = open();
    return body[Symbol.asyncIterator]();
  }

  function close(): void {
    closed = true;
    body?.close();
    release?.();
  }

  return {
    close,
    [Symbol.asyncIterator]: () => ({
      async next(): Promise<IteratorResult<Buffer>> {
        opening ??= start();
        return (await opening).next();
      },
      async return(): Promise<IteratorResult<Buffer>> {
        close();
        return { value: undefined, done: true };
      },
    }),
  };
}
