// A TCP proxy in front of one PostgreSQL server that can lose the answer to a COMMIT: it
// forwards the COMMIT, waits for the server's answer (so the transaction has committed),
// withholds it and closes both sides. Everything else passes as it is.
import { createServer, type Socket, connect as tcpConnect } from "node:net";

// The simple-query message `COMMIT` as the driver sends it: 'Q', its length (4 + 7), the text and a NUL.
const COMMIT = Buffer.concat([Buffer.from("Q"), Buffer.from([0, 0, 0, 11]), Buffer.from("COMMIT\0")]);

/** The proxy's address and its one fault. */
export interface CommitProxy {
  readonly url: string;
  /** The next COMMIT's answer is lost; resolves once it was withheld and the connection closed. */
  loseNextCommitAnswer(): Promise<void>;
  close(): Promise<void>;
}

/** Listens on a free loopback port and forwards every connection to `port`. */
export async function startCommitProxy(port: number): Promise<CommitProxy> {
  const sockets = new Set<Socket>();
  let armed: (() => void) | undefined;
  const server = createServer((client) => {
    const upstream = tcpConnect(port, "127.0.0.1");
    sockets.add(client).add(upstream);
    let withholding: (() => void) | undefined;
    client.on("data", (data) => {
      if (armed !== undefined && data.includes(COMMIT)) {
        withholding = armed;
        armed = undefined;
      }
      upstream.write(data);
    });
    upstream.on("data", (data) => {
      if (withholding === undefined) {
        client.write(data);
        return;
      }
      client.destroy();
      upstream.destroy();
      withholding();
    });
    for (const socket of [client, upstream]) {
      socket.on("error", () => {});
      socket.on("close", () => {
        client.destroy();
        upstream.destroy();
        sockets.delete(socket);
      });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address() as { port: number };
  return {
    url: `postgres://catalog@127.0.0.1:${address.port}/catalog`,
    loseNextCommitAnswer: () => new Promise<void>((resolve) => (armed = resolve)),
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
