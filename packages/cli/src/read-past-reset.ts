// A server that answers an upload early (a limit, a bad row) and then closes may reset the
// connection while the body is still going out. Its answer arrived before the reset and the
// kernel still holds it, but Node destroys a socket whose write fails, before reading what is
// there: the answer is lost and the command sees only "write EPIPE". curl reads on after a failed
// send, and so does this: the failed write is reported here instead of to the socket's stream,
// which keeps reading until the answer, or the end of the connection, arrives.
import type { Socket } from "node:net";

// The errors of a write to a connection the server has reset or closed.
const RESET = new Set(["EPIPE", "ECONNRESET"]);

type WriteCallback = (error?: Error | null) => void;

function tolerant(callback: WriteCallback, onReset: (error: Error) => void): WriteCallback {
  return (error) => {
    if (error && RESET.has((error as NodeJS.ErrnoException).code ?? "")) {
      onReset(error);
      callback();
    } else {
      callback(error);
    }
  };
}

/**
 * Makes a failed write of `socket` to a reset connection call `onReset` rather than destroy the
 * socket; the caller stops writing, and reading goes on. For a socket of one request only.
 */
export function readPastReset(socket: Socket, onReset: (error: Error) => void): void {
  const write = socket._write;
  const writev = socket._writev;
  socket._write = function (chunk, encoding, callback) {
    write.call(this, chunk, encoding, tolerant(callback, onReset));
  };
  if (writev !== undefined) {
    socket._writev = function (chunks, callback) {
      writev.call(this, chunks, tolerant(callback, onReset));
    };
  }
}
