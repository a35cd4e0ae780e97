// The run's shared servers: started once whoever asks and however often, stopped at the end, and
// killed with the process when a run ends without its teardown.
import { connect } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { redisCli, startPostgres, startRedisServer } from "../src/index.ts";
import { serveSharedServers } from "../src/shared-servers.ts";
import { describeWithPostgres, describeWithRedis } from "../src/vitest.ts";

const portOf = (url: string) => Number(new URL(url).port);

// Whether something accepts connections on the loopback port.
const listening = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });

async function closes(port: number): Promise<boolean> {
  for (let i = 0; i < 250 && (await listening(port)); i++) await sleep(20);
  return !(await listening(port));
}

describe("the shared-server endpoint", () => {
  it("answers 404 to a kind of server it does not have", async () => {
    const servers = await serveSharedServers();
    try {
      expect((await fetch(`${servers.url}/memcached`)).status).toBe(404);
    } finally {
      await servers.stop();
    }
  });
});

describeWithRedis("the shared redis-server", () => {
  it("is one server for every request, even at once, until stop", async () => {
    const servers = await serveSharedServers();
    const ask = async () => ((await (await fetch(`${servers.url}/redis`)).json()) as { urls: string[] }).urls;
    const answers = await Promise.all([ask(), ask(), ask()]);
    const [url] = answers[0] as string[];
    expect(answers).toEqual([[url], [url], [url]]);
    expect(await redisCli(portOf(url as string), "PING")).toBe("PONG");
    await servers.stop();
    expect(await closes(portOf(url as string))).toBe(true);
    expect((await fetch(`${servers.url}/redis`).catch((error: unknown) => error)) instanceof Error).toBe(true);
  });

  it("abandon kills a server at once, with no await", async () => {
    const server = await startRedisServer();
    server.abandon();
    expect(await closes(server.port)).toBe(true);
  });
});

describeWithPostgres("the shared PostgreSQL", () => {
  it("abandon stops a server at once, with no await", async () => {
    const server = await startPostgres();
    server.abandon();
    expect(await closes(server.port)).toBe(true);
    await server.stop();
  });
});
