// A POST whose body the test writes piece by piece (a slow client, a chunked body cut short), and
// its answer once the server gives it.
import { request as httpRequest, type IncomingHttpHeaders } from "node:http";
import { TOKENS } from "./test-server.ts";

/** What a piece-by-piece upload was answered: its status, headers and JSON body (`{}` when empty). */
export interface UploadAnswer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: Record<string, unknown>;
}

/** A chunked NDJSON body under the request id `slow-upload`, the history tests' slow client. */
export const SLOW_UPLOAD = {
  "content-type": "application/x-ndjson",
  "x-request-id": "slow-upload",
  "transfer-encoding": "chunked",
};

/** Opens a POST of `url` (a server's URL and a path) with `headers`; the test writes and ends `req`. */
export function upload(url: string, headers: Record<string, string>, token: string = TOKENS.admin) {
  const req = httpRequest(new URL(url), { method: "POST", headers: { "x-service-access-token": token, ...headers } });
  const answer = new Promise<UploadAnswer>((resolve, reject) => {
    req.on("response", (res) => {
      let text = "";
      res.on("data", (chunk) => {
        text += chunk;
      });
      res.on("end", () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text ? JSON.parse(text) : {} }),
      );
    });
    req.on("error", reject);
  });
  return { req, answer };
}
