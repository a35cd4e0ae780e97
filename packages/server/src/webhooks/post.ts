// One try of a delivery: a POST by node:http or node:https (not fetch, whose connection cannot be
// given a lookup), bounded as a whole by `timeoutMs`, to a public address unless private ones are
// allowed. The answer's body is never read: its status and `Retry-After` are all that count.
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { isPublicAddress, literalAddress, PrivateAddressError, publicOnlyLookup } from "./address.ts";

/** How a try ended: the target's status (and `Retry-After`), or an error (refused, timed out, cut). */
export type PostOutcome = { readonly status: number; readonly retryAfter?: string } | { readonly error: Error };

/** What a try needs beyond the message. */
export interface PostOptions {
  readonly timeoutMs: number;
  readonly allowPrivate: boolean;
  /** Abandons the try (the server stops): it ends with an error at once. */
  readonly signal?: AbortSignal;
}

const USER_AGENT = "catalog-kit-webhooks/1";

/** Sends `body` to `url` with `headers`; never rejects, every failure is an outcome. */
export function postWebhook(
  url: string,
  headers: Record<string, string>,
  body: string,
  options: PostOptions,
): Promise<PostOutcome> {
  return new Promise((resolve) => {
    const target = new URL(url);
    const address = literalAddress(target);
    // A literal address is never looked up, so it is checked here (start-up refused it already).
    if (address !== undefined && !options.allowPrivate && !isPublicAddress(address)) {
      resolve({ error: new PrivateAddressError(target.hostname, address) });
      return;
    }
    const request = target.protocol === "https:" ? httpsRequest : httpRequest;
    const lookup = options.allowPrivate ? undefined : publicOnlyLookup();
    let settled = false;
    const finish = (outcome: PostOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", abort);
      resolve(outcome);
    };
    const req = request(
      target,
      {
        method: "POST",
        // A fresh connection each time, looked up and checked anew: no pooled socket outlives a check.
        agent: false,
        ...(lookup === undefined ? {} : { lookup }),
        headers: {
          ...headers,
          "content-type": "application/json",
          "content-length": String(Buffer.byteLength(body)),
          "user-agent": USER_AGENT,
        },
      },
      (res) => {
        const retryAfter = res.headers["retry-after"];
        finish({ status: res.statusCode ?? 0, ...(retryAfter === undefined ? {} : { retryAfter }) });
        res.destroy();
      },
    );
    const timer = setTimeout(() => {
      req.destroy(new Error(`No answer within ${options.timeoutMs} ms`));
    }, options.timeoutMs);
    const abort = () => req.destroy(new Error("The server stopped"));
    options.signal?.addEventListener("abort", abort, { once: true });
    if (options.signal?.aborted) abort();
    req.on("error", (error) => finish({ error }));
    req.end(body);
  });
}
