// startServer: node:http with the timeouts slow clients need, and a graceful close.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** How to run a handler on its own `node:http` server. */
export interface ServerOptions {
  readonly handler: (req: IncomingMessage, res: ServerResponse) => unknown;
  /** Port to listen on; 0 picks a free one. Default 3000. */
  readonly port?: number;
  /** Address to bind; default 127.0.0.1. */
  readonly host?: string;
  /** Milliseconds a client has to send its request headers; default 10 s. */
  readonly headersTimeout?: number;
  /** Milliseconds a client has to send its whole request, body included; default 120 s. */
  readonly requestTimeout?: number;
  /** Milliseconds an idle keep-alive connection stays open; default 5 s. */
  readonly keepAliveTimeout?: number;
  /** Milliseconds `close()` waits for in-flight requests before cutting connections; default 30 s. */
  readonly shutdownTimeout?: number;
}

/** A listening server. */
export interface RunningServer {
  /** The `node:http` server, for what this wrapper does not cover. */
  readonly server: Server;
  /** The bound address and port (the real port when 0 was asked for). */
  readonly address: AddressInfo;
  /** A base URL clients on this machine can use, such as `http://127.0.0.1:3000`. */
  readonly url: string;
  /**
   * Stops accepting connections, lets in-flight requests finish and closes idle connections;
   * resolves when the last connection is gone. Calling it again returns the same promise.
   */
  close(): Promise<void>;
}

/** A URL for an address, with a wildcard address replaced by loopback so that it can be used as is. */
export function urlOf(address: AddressInfo): string {
  let host = address.address;
  if (host === "0.0.0.0") host = "127.0.0.1";
  else if (host === "::") host = "::1";
  return `http://${address.family === "IPv6" || host.includes(":") ? `[${host}]` : host}:${address.port}`;
}

/**
 * Runs a request handler on a new `node:http` server with keep-alive, timeouts against slow
 * clients and a graceful `close()`.
 */
export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const { handler } = options;
  let closing = false;
  const server = createServer(
    {
      keepAlive: true,
      headersTimeout: options.headersTimeout ?? 10_000,
      requestTimeout: options.requestTimeout ?? 120_000,
      keepAliveTimeout: options.keepAliveTimeout ?? 5_000,
      connectionsCheckingInterval: Math.min(options.headersTimeout ?? 10_000, 1_000),
    },
    (req, res) => {
      // Requests that arrive while closing are answered, and their connection is closed after.
      if (closing) res.setHeader("connection", "close");
      handler(req, res);
    },
  );
  // Without this listener Node answers "100 Continue" before the handler has checked anything.
  server.on("checkContinue", (req, res) => server.emit("request", req, res));
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 3000, options.host ?? "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  let closed: Promise<void> | undefined;

  function close(): Promise<void> {
    closed ??= new Promise<void>((resolve) => {
      closing = true;
      server.close(() => {
        clearInterval(sweep);
        clearTimeout(deadline);
        resolve();
      });
      server.closeIdleConnections();
      // A connection whose last request ends after close() turns idle later: sweep it then.
      const sweep = setInterval(() => server.closeIdleConnections(), 50);
      const deadline = setTimeout(() => server.closeAllConnections(), options.shutdownTimeout ?? 30_000);
      deadline.unref();
    });
    return closed;
  }

  return { server, address, url: urlOf(address), close };
}
