// An import staged on a connection of its own: each chunk is sent with COPY into that
// connection's temporary table as it arrives (or, into a site that has no row yet, into the
// products table under a number of its own: new-site.ts), and the commit is one transaction
// there. A process that dies takes its connection, and so its staging, with it: the server drops both.
import type { CommitResult, KeyToRecord, Site, StagedImport, WriteOptions } from "@catalog-kit/catalog-core";
import type pg from "pg";
import type { BaseDigests } from "./base-digests.ts";
import { judgeAndApply, PREPARE_STAGING } from "./commit.ts";
import { copyIn, copyRows } from "./copy-rows.ts";
import { serverAnswered, unavailable } from "./errors.ts";
import { backToStaging, commitNewSite, END_NEW_SITE, type NewSite, openNewSite, writeChunk } from "./new-site.ts";
import { type ImportSlots, NO_TIMEOUT, type TimedQuery } from "./pool.ts";
import { ORDER, STAGING } from "./reduce.ts";
import type { Tables } from "./schema.ts";

/** What an import needs of its store. */
export interface ImportContext {
  readonly pool: pg.Pool;
  readonly slots: ImportSlots;
  readonly tables: Tables;
  /** Digests of the bases a merge stages. */
  readonly digests: BaseDigests;
}

const COPY = `COPY ${STAGING} (seq, position, id, sku, body) FROM STDIN`;
const COPY_BASED = `COPY ${STAGING} (seq, position, id, sku, body, base) FROM STDIN`;

/**
 * `client` with no timeout on its statements. A commit judges and writes the whole import (tens
 * of seconds for a million products) and may wait for another commit of its site: no bound fits
 * every healthy one. A connection that goes silent under it is found by TCP keepalive instead.
 */
function unhurried(client: pg.PoolClient): pg.PoolClient {
  const query = (sql: string | pg.QueryConfig | pg.Submittable, values?: unknown[]) => {
    // A COPY stream is the driver's own object, not a copy of one: it keeps the pool's timeout.
    if (typeof sql !== "string" && "submit" in sql) return client.query(sql);
    const config = typeof sql === "string" ? { text: sql, ...(values && { values }) } : sql;
    const timed: TimedQuery = { ...config, query_timeout: NO_TIMEOUT };
    return client.query(timed);
  };
  return new Proxy(client, { get: (target, key) => (key === "query" ? query : Reflect.get(target, key, target)) });
}

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
  // Declared before the first statement, whose failure already releases the connection.
  let done = false;
  let seq = 0;
  let based = false;
  let newSite: NewSite | undefined;
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
    const sql = `TRUNCATE ${STAGING}, ${ORDER}${newSite ? `; ${END_NEW_SITE}` : ""}`;
    if (broken === undefined) await connection.query(sql).catch((error: Error) => (broken = error));
    release();
  }

  return {
    async add(products, positions, bases) {
      if (done) throw unavailable(new Error("the import was already ended"), "import", "nothing written");
      if (products.length === 0) return;
      const firstSeq = seq;
      seq += products.length;
      based ||= bases !== undefined;
      try {
        if (firstSeq === 0 && !dryRun && !based) newSite = await openNewSite(connection, ctx.tables, site);
        // Bases are kept and checked in the staging alone.
        if (based && newSite?.written !== undefined) await backToStaging(connection, ctx.tables, newSite);
        const written =
          newSite !== undefined && (await writeChunk(connection, ctx.tables, newSite, products, positions, firstSeq));
        if (!written) {
          const digests = bases && ctx.digests.of(bases);
          await copyIn(connection, digests ? COPY_BASED : COPY, copyRows(products, positions, firstSeq, digests));
        }
      } catch (error) {
        broken ??= error as Error;
        release();
        throw unavailable(error, "import", "nothing written");
      }
    },

    async commit(key?: KeyToRecord): Promise<CommitResult> {
      if (done) throw unavailable(new Error("the import was already ended"), "import", "nothing written");
      let result: CommitResult;
      const committing = unhurried(connection);
      try {
        await committing.query(dryRun ? "BEGIN ISOLATION LEVEL REPEATABLE READ" : "BEGIN");
        const plan = { dryRun, replace, key, based };
        result =
          (newSite && (await commitNewSite(committing, ctx.tables, site, newSite, plan))) ??
          (await judgeAndApply(committing, ctx.tables, site, plan));
      } catch (error) {
        broken ??= error as Error;
        await finish();
        throw unavailable(error, "import", "nothing written");
      }
      try {
        // A transaction that writes nothing ends as well by the server dropping it.
        if (dryRun || !result.applied) await connection.query("ROLLBACK").catch((error: Error) => (broken ??= error));
        else await committing.query("COMMIT");
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
