// The HTTP rows of SQLite storage: the standalone server as `npm start` runs it on a SQLite file,
// against the same server on the memory store, the two loaded with the same products, each alone
// in a fresh process (and on a fresh database file) every round: GET by id.
import { rm } from "node:fs/promises";
import { join } from "node:path";
import type { Row } from "../report.ts";
import { alternateAlone, compare } from "./load.ts";
import { type Running, startNpmStart } from "./servers.ts";
import { aloneRounds, GENERATOR, GET, getSeconds, quick, stored, work } from "./setup.ts";

const SERVER = "standalone server as `npm start` runs it (access log on)";
const BASELINE = { label: "memory", name: "the same server on the memory store, the same products" };

let files = 0;

/** `npm start` on a fresh SQLite file in the scenario's folder, removed (with its write-ahead log) when it stops. */
async function onSqlite(): Promise<Running> {
  const path = join(work, `sqlite-${++files}.db`);
  const server = await startNpmStart({ name: "sqlite", section: { adapter: "sqlite", path } });
  return {
    ...server,
    async stop() {
      await server.stop();
      for (const suffix of ["", "-wal", "-shm"]) await rm(`${path}${suffix}`, { force: true });
    },
  };
}

/** GET by id through the standalone server on a fresh SQLite file against the same on memory. */
export async function sqliteRows(): Promise<Row[]> {
  const get = await alternateAlone("GET by id, sqlite against memory", {
    sqlite: [onSqlite, GET],
    memory: [() => startNpmStart(), GET],
  });
  const figures = compare(get, "sqlite", "memory");
  const n = stored.toLocaleString("en-US");
  return [
    {
      name: "GET by id, npm start, sqlite",
      scenario: `HTTP GET by id, sqlite, ${SERVER}, ${GENERATOR}, 50 connections, ${getSeconds} s x ${aloneRounds}, a fresh server and database file each round (${n} products stored)`,
      figure: figures.figure,
      unit: "req/s",
      baseline: { ...BASELINE, figure: figures.baseline, unit: "req/s" },
      ratio: figures.ratio,
      note: `${figures.note}; SQLite runs in the server's process: its CPU is the server's`,
      ...(quick ? {} : { target: { label: ">= 0.8x", minRatio: 0.8 } }),
    },
  ];
}
