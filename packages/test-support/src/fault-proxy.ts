// A TCP proxy in front of one Redis that understands just enough RESP to know where each
// command and each reply ends, so a test can make Redis run a command whose reply never reaches
// the client: the one fault that no amount of killing servers reproduces deterministically.
import { createServer, type Server, type Socket, connect as tcpConnect } from "node:net";

/** The arguments of one command, `argv[0]` being its name. */
export type Argv = readonly Buffer[];
/** Picks commands out of the stream. */
export type Match = (argv: Argv) => boolean;

/** True for a Lua script call (EVALSHA or EVAL, in any case). */
export const isScriptCall: Match = (argv) => {
  const name = argv[0]?.toString().toUpperCase();
  return name === "EVALSHA" || name === "EVAL" || name === "EVALSHA_RO" || name === "EVAL_RO";
};

/** True when some argument of the command contains `text` (a key, a site's hash tag). */
export const mentions =
  (text: string): Match =>
  (argv) =>
    argv.some((arg) => arg.includes(text));

/** A script call on the keys of `site`. */
export const scriptOf =
  (site: { readonly siteId: string }): Match =>
  (argv) =>
    isScriptCall(argv) && mentions(site.siteId)(argv);

/** Options of `dropReplyAfter`. */
export interface DropOptions {
  /**
   * Decides, right before a matching command would be forwarded, whether this is the one whose
   * reply is lost; a command it declines passes normally and the drop stays armed.
   */
  readonly when?: (argv: Argv) => Promise<boolean> | boolean;
  /** How long the drop stays armed; then it is disarmed and the promise rejects. Default 10 s. */
  readonly timeoutMs?: number;
  /**
   * Runs once the withheld reply has arrived, before the connection is closed: the moment when
   * the command has run and its client knows nothing yet (a test may kill the client then).
   */
  readonly onReply?: () => void;
}

export interface FaultProxy {
  readonly port: number;
  /** `redis://127.0.0.1:<port>` */
  readonly url: string;
  /**
   * Arms a lost reply: the next matching command is forwarded to Redis, Redis's reply to it is
   * awaited and withheld, and both sockets of that connection are destroyed. The promise
   * resolves with the command once that happened.
   */
  dropReplyAfter(match: Match, options?: DropOptions): Promise<Argv>;
  /** Runs `hook` before each matching command is forwarded (that connection waits for it). */
  before(match: Match, hook: (argv: Argv) => Promise<void> | void): () => void;
  /** How many matching commands were forwarded to Redis so far. */
  count(match: Match): number;
  /** Holds every command of every connection (new ones too) until `resume`. */
  pause(): void;
  resume(): void;
  /** Stops listening and destroys every connection. */
  close(): Promise<void>;
}

/** End offset of the RESP value at `at`, or -1 when `buf` does not hold all of it yet. */
function skipValue(buf: Buffer, at: number): number {
  if (at >= buf.length) return -1;
  const line = buf.indexOf("\r\n", at);
  if (line < 0) return -1;
  const type = String.fromCharCode(buf[at] as number);
  const rest = line + 2;
  switch (type) {
    case "+":
    case "-":
    case ":":
    case "_":
    case ",":
    case "#":
    case "(":
      return rest;
    case "$":
    case "!":
    case "=": {
      const length = Number(buf.toString("latin1", at + 1, line));
      if (length < 0) return rest;
      return buf.length >= rest + length + 2 ? rest + length + 2 : -1;
    }
    case "*":
    case "~":
    case ">":
    case "%":
    case "|": {
      let count = Number(buf.toString("latin1", at + 1, line));
      if (type === "%" || type === "|") count *= 2;
      let end = rest;
      for (let i = 0; i < count; i++) {
        end = skipValue(buf, end);
        if (end < 0) return -1;
      }
      return end;
    }
    default:
      throw new Error(`unexpected RESP type byte ${JSON.stringify(type)}`);
  }
}

/** The command at `at` (an array of bulk strings) and where it ends, or undefined when incomplete. */
function parseCommand(buf: Buffer, at: number): { argv: Buffer[]; end: number } | undefined {
  const line = buf.indexOf("\r\n", at);
  if (line < 0) return undefined;
  if (buf[at] !== 0x2a) {
    // An inline command (redis-cli may send one): words up to the line end.
    const words = buf.toString("latin1", at, line).trim().split(/\s+/);
    return { argv: words.map((w) => Buffer.from(w, "latin1")), end: line + 2 };
  }
  const count = Number(buf.toString("latin1", at + 1, line));
  const argv: Buffer[] = [];
  let pos = line + 2;
  for (let i = 0; i < count; i++) {
    const header = buf.indexOf("\r\n", pos);
    if (header < 0) return undefined;
    if (buf[pos] !== 0x24) throw new Error("expected a bulk string in a command");
    const length = Number(buf.toString("latin1", pos + 1, header));
    const start = header + 2;
    if (buf.length < start + length + 2) return undefined;
    argv.push(buf.subarray(start, start + length));
    pos = start + length + 2;
  }
  return { argv, end: pos };
}

interface Hook {
  readonly match: Match;
  readonly run: (argv: Argv) => Promise<void> | void;
}

interface ArmedDrop {
  readonly match: Match;
  readonly options: DropOptions;
  readonly done: (argv: Argv) => void;
}

/** Starts a proxy on a free loopback port (or `listenPort`) forwarding to `127.0.0.1:targetPort`. */
export async function startFaultProxy(targetPort: number, listenPort = 0): Promise<FaultProxy> {
  const hooks = new Set<Hook>();
  const drops: ArmedDrop[] = [];
  const forwarded: Argv[] = [];
  const sockets = new Set<Socket>();
  let gate: { promise: Promise<void>; open: () => void } | undefined;

  function handle(client: Socket): void {
    const server = tcpConnect(targetPort, "127.0.0.1");
    sockets.add(client);
    sockets.add(server);
    client.setNoDelay(true);
    server.setNoDelay(true);
    let dead = false;
    const kill = () => {
      if (dead) return;
      dead = true;
      client.destroy();
      server.destroy();
      sockets.delete(client);
      sockets.delete(server);
    };
    client.on("error", kill);
    server.on("error", kill);
    client.on("close", kill);
    server.on("close", kill);

    // Client → server: commands one at a time, so hooks and drops see them in order.
    let inbound: Buffer = Buffer.alloc(0);
    let sent = 0;
    let dropAt = -1;
    let onDropped: (() => void) | undefined;
    let onReply: (() => void) | undefined;
    let pumping = false;
    const pump = async () => {
      if (pumping) return;
      pumping = true;
      try {
        // Nothing after a doomed command reaches Redis: its connection is about to go.
        while (!dead && dropAt < 0) {
          const parsed = parseCommand(inbound, 0);
          if (parsed === undefined) break;
          const raw = inbound.subarray(0, parsed.end);
          inbound = inbound.subarray(parsed.end);
          const argv = parsed.argv.map((a) => Buffer.from(a));
          if (gate) await gate.promise;
          for (const hook of [...hooks]) if (hook.match(argv)) await hook.run(argv);
          if (dead) break;
          if (dropAt < 0) {
            for (const drop of [...drops]) {
              if (!drop.match(argv)) continue;
              if (drop.options.when && !(await drop.options.when(argv))) continue;
              drops.splice(drops.indexOf(drop), 1);
              dropAt = sent;
              onDropped = () => drop.done(argv);
              onReply = drop.options.onReply;
              break;
            }
          }
          if (dead) break;
          server.write(Buffer.from(raw));
          forwarded.push(argv);
          sent += 1;
        }
      } finally {
        pumping = false;
      }
    };
    client.on("data", (data: Buffer) => {
      inbound = inbound.length === 0 ? data : Buffer.concat([inbound, data]);
      pump().catch(kill);
    });

    // Server → client: passed through reply by reply; the doomed command's reply is swallowed.
    let outbound: Buffer = Buffer.alloc(0);
    let replies = 0;
    server.on("data", (data: Buffer) => {
      outbound = outbound.length === 0 ? data : Buffer.concat([outbound, data]);
      let at = 0;
      for (;;) {
        const end = skipValue(outbound, at);
        if (end < 0) break;
        if (dropAt >= 0 && replies === dropAt) {
          if (at > 0) client.write(outbound.subarray(0, at));
          onReply?.();
          kill();
          onDropped?.();
          return;
        }
        replies += 1;
        at = end;
      }
      if (at > 0) client.write(outbound.subarray(0, at));
      outbound = outbound.subarray(at);
    });
  }

  const listener: Server = createServer(handle);
  await new Promise<void>((resolve, reject) => {
    listener.once("error", reject);
    listener.listen(listenPort, "127.0.0.1", () => resolve());
  });
  const address = listener.address();
  if (address === null || typeof address === "string") throw new Error("the proxy has no port");
  const port = address.port;

  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    dropReplyAfter: (match, options = {}) =>
      new Promise<Argv>((resolve, reject) => {
        const timeoutMs = options.timeoutMs ?? 10_000;
        // A test whose fault never happened must fail as such, not hang or pass by accident.
        const timer = setTimeout(() => {
          const at = drops.indexOf(drop);
          if (at >= 0) drops.splice(at, 1);
          reject(new Error(`no matching command was forwarded within ${timeoutMs} ms`));
        }, timeoutMs);
        const drop: ArmedDrop = {
          match,
          options,
          done: (argv) => {
            clearTimeout(timer);
            resolve(argv);
          },
        };
        drops.push(drop);
      }),
    before(match, run) {
      const hook = { match, run };
      hooks.add(hook);
      return () => void hooks.delete(hook);
    },
    count: (match) => forwarded.filter(match).length,
    pause() {
      if (gate) return;
      let open = () => {};
      const promise = new Promise<void>((resolve) => {
        open = resolve;
      });
      gate = { promise, open };
    },
    resume() {
      gate?.open();
      gate = undefined;
    },
    async close() {
      gate?.open();
      gate = undefined;
      for (const socket of sockets) socket.destroy();
      sockets.clear();
      await new Promise<void>((resolve) => listener.close(() => resolve()));
    },
  };
}
