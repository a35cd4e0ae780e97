import { connect, type Socket } from "node:net";

/** A raw HTTP/1.1 connection, for what fetch cannot express (partial bodies, early answers). */
export interface RawConnection {
  readonly socket: Socket;
  write(data: string | Uint8Array): Promise<void>;
  /** Everything received so far, as latin1 text. */
  received(): string;
  /** Resolves when the received text satisfies `done`, or rejects after `timeoutMs`. */
  waitFor(done: (text: string) => boolean, timeoutMs?: number): Promise<string>;
  /** Resolves when the server has closed the connection. */
  readonly closed: Promise<void>;
  destroy(): void;
}

/** Opens a TCP connection to the host and port of `url`. */
export async function openRaw(url: string): Promise<RawConnection> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", resolve);
    socket.once("error", reject);
  });
  let text = "";
  const listeners = new Set<() => void>();
  socket.on("data", (chunk: Buffer) => {
    text += chunk.toString("latin1");
    for (const listener of listeners) listener();
  });
  // The server may reset a connection whose body it refused; that is an expected end here.
  socket.on("error", () => {});
  const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
  return {
    socket,
    write: (data) =>
      new Promise<void>((resolve) => {
        if (socket.destroyed) resolve();
        else socket.write(data, () => resolve());
      }),
    received: () => text,
    waitFor(done, timeoutMs = 5_000) {
      return new Promise<string>((resolve, reject) => {
        const check = () => {
          if (!done(text)) return;
          listeners.delete(check);
          clearTimeout(timer);
          resolve(text);
        };
        const timer = setTimeout(() => {
          listeners.delete(check);
          reject(new Error(`Timed out; received so far:\n${text}`));
        }, timeoutMs);
        listeners.add(check);
        check();
      });
    },
    closed,
    destroy: () => socket.destroy(),
  };
}

/** True once `text` holds a complete response head and as many body bytes as its Content-Length says. */
export function hasCompleteResponse(text: string): boolean {
  const end = text.indexOf("\r\n\r\n");
  if (end === -1) return false;
  const length = /\r\ncontent-length: *(\d+)/i.exec(text.slice(0, end))?.[1];
  return length !== undefined && Buffer.byteLength(text.slice(end + 4), "latin1") >= Number(length);
}

/** The status code and JSON body of a raw response text. */
export function parseRawResponse(text: string): { status: number; headers: string; body: unknown } {
  const end = text.indexOf("\r\n\r\n");
  const head = text.slice(0, end);
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]);
  const raw = Buffer.from(text.slice(end + 4), "latin1").toString("utf8");
  return { status, headers: head.toLowerCase(), body: raw === "" ? undefined : JSON.parse(raw) };
}
