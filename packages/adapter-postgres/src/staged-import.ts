// An import staged on a connection of its own: each chunk is sent with COPY into that
// connection's temporary table as it arrives, and the commit is one transaction there. A process
// that dies takes its connection, and so its staging, with it: the server drops both.
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { CommitResult, KeyToRecord, Site, StagedImport, WriteOptions } from "@catalog-kit/catalog-core";
import type pg from "pg";
import { from as copyFrom } from "pg-copy-streams";
import { judgeAndApply, PREPARE_STAGING } from "./commit.ts";
import { copyRows } from "./copy-rows.ts";
import { serverAnswered, unavailable } from "./errors.ts";
import type { ImportSlots } from "./pool.ts";
import { STAGING } from "./reduce.ts";
import type { Tables } from "./schema.ts";

/** What an import needs of its store. */
export interface ImportContext {
  readonly pool: pg.Pool;
  readonly slots: ImportSlots;
  readonly tables: Tables;
}

const COPY = `COPY ${STAGING} (seq, position, id, sku, body) FROM STDIN`;

/** Takes a connection (within the imports' share of the pool) and an empty staging table on it. */
export async function beginStagedImport(
  ctx: ImportContext,
  site: Site,
  { dryRun, replace = false }: WriteOptions,
): Promise<StagedImport> {
  try {
    await ctx.slots.acquire();
  } catch (error) {
    throw unavailable(error, "import", "nothing written");
  }
  let client: pg.PoolClient | undefined;
  // Set once the connection may be in any state: it is then closed rather than lent again.
  let broken: Error | undefined;
  // Until the caller is answered, a dropped connection shows as the failure of its next query.
  const onError = (error: Error) => {
    broken ??= error;
  };
  try {
    client = await ctx.pool.connect();
    client.on("error", onError);
    await client.query(PREPARE_STAGING);
  } catch (error) {
    if (client === undefined) ctx.slots.release();
    else release(error as Error);
    throw unavailable(error, "import", "nothing written");
  }
  const connection = client;
  let done = false;
  let seq = 0;

  function release(error?: Error): void {
    if (done || client === undefined) return;
    done = true;
    client.off("error", onError);
    client.release(error ?? broken);
    ctx.slots.release();
  }

  // The staging is emptied before the connection goes back to the pool: a temporary table lasts
  // as long as its connection, which the pool keeps.
  async function finish(): Promise<void> {
    if (done) return;
    if (broken === undefined) await connection.query(`TRUNCATE ${STAGING}`).catch((error: Error) => (broken = error));
    release();
  }

  return {
    async add(products, positions) {
      if (done) throw unavailable(new Error("the import was already ended"), "import", "nothing written");
      if (products.length === 0) return;
      const rows = copyRows(products, positions, seq);
      seq += products.length;
      try {
        await pipeline(Readable.from([rows]), connection.query(copyFrom(COPY)));
      } catch (error) {
        broken ??= error as Error;
        release();
        throw unavailable(error, "import", "nothing written");
      }
    },

    async commit(key?: KeyToRecord): Promise<CommitResult> {
      if (done) throw unavailable(new Error("the import was already ended"), "import", "nothing written");
      let result: CommitResult;
      try {
        await connection.query(dryRun ? "BEGIN ISOLATION LEVEL REPEATABLE READ" : "BEGIN");
        result = await judgeAndApply(connection, ctx.tables, site, { dryRun, replace, key });
      } catch (error) {
        broken ??= error as Error;
        await finish();
        throw unavailable(error, "import", "nothing written");
      }
      try {
        // A transaction that writes nothing ends as well by the server dropping it.
        if (dryRun || !result.applied) await connection.query("ROLLBACK").catch((error: Error) => (broken ??= error));
        else await connection.query("COMMIT");
        return result;
      } catch (error) {
        // The answer to COMMIT is the one that may be lost after the server applied it.
        broken ??= error as Error;
        throw unavailable(error, "import", serverAnswered(error) ? "nothing written" : "unknown");
      } finally {
        await finish();
      }
    },

    async abort() {
      await finish();
    },
  };
}
