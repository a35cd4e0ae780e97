// Metrics on an address of their own (`"metrics": { "port": 9464 }`): a listener that serves
// `GET /metrics` and nothing else.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { ServerMetrics } from "./metrics.ts";

/** A request listener that answers `GET /metrics` and nothing else: for metrics on an address of their own. */
export function metricsListener(metrics: ServerMetrics): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  return async (req, res) => {
    const path = (req.url ?? "/").split("?", 1)[0];
    if (path !== "/metrics" || (req.method !== "GET" && req.method !== "HEAD")) {
      res.writeHead(404, { "content-type": "text/plain" }).end("Only GET /metrics is served here\n");
      return;
    }
    try {
      const { contentType, body } = await metrics.render();
      res.writeHead(200, { "content-type": contentType }).end(body);
    } catch {
      res.writeHead(500, { "content-type": "text/plain" }).end("The metrics could not be rendered\n");
    }
  };
}
