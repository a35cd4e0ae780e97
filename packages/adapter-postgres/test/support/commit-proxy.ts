// A TCP proxy in front of one PostgreSQL server with the network's faults a test needs: the
// answer to a COMMIT (or to another statement) lost after the server ran it, and a network that
// goes silent, forwarding nothing and closing nothing, until it heals. Everything else passes as it is.
import { createServer, type Socket, connect as tcpConnect } from "node:net";

// The simple-query message `COMMIT` as the driver sends it: 'Q', its length (4 + 7), the text and a NUL.
const COMMIT = Buffer.concat([Buffer.from("Q"), Buffer.from([0, 0, 0, 11]), Buffer.from("COMMIT\0")]);

/** The proxy's address and its faults. */
export interface CommitProxy {
  readonly url: string;
  /** The next COMMIT's answer is lost; resolves once it was withheld and the connection closed. */
  loseNextCommitAnswer(): Promise<void>;
  /** The answer to the next message that contains `text` is lost, as `loseNextCommitAnswer`'s. */
  loseNextAnswerTo(text: string): Promise<void>;
  /** From now on nothing is forwarded either way, on open connections and new ones, and nothing is closed. */
  stall(): void;
  /** Forwards what the stall held, and everything after it. */
  heal(): void;
  close(): Promise<void>;
}

/** Listens on a free loopback port and forwards every connection to `port`. */
export async function startCommitProxy(port: number): Promise<CommitProxy> {
  const sockets = new Set<Socket>();
  let armed: { readonly text: Buffer; readonly resolve: () => void } | undefined;
  // While stalled, each write waits here, in order.
  let held: (() => void)[] | undefined;
  const send = (to: Socket, data: Buffer) => {
    if (held === undefined) to.write(data);
    else held.push(() => to.write(data));
  };
  const server = createServer((client) => {
    const upstream = tcpConnect(port, "127.0.0.1");
    sockets.add(client).add(upstream);
    let withholding: (() => void) | undefined;
    client.on("data", (data) => {
      if (armed !== undefined && data.includes(armed.text)) {
        withholding = armed.resolve;
        armed = undefined;
      }
      send(upstream, data);
    });
    upstream.on("data", (data) => {
      if (withholding === undefined) {
        send(client, data);
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
  const lose = (text: Buffer) => new Promise<void>((resolve) => (armed = { text, resolve }));
  return {
    url: `postgres://catalog@127.0.0.1:${address.port}/catalog`,
    loseNextCommitAnswer: () => lose(COMMIT),
    loseNextAnswerTo: (text) => lose(Buffer.from(text)),
    stall() {
      held ??= [];
    },
    heal() {
      const writes = held ?? [];
      held = undefined;
      for (const write of writes) write();
    },
    async close() {
      held = undefined;
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
