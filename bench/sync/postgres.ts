// The full sync on PostgreSQL storage: `mode=replace` of a site to 90 % of its products, through
// the standalone server on a private PostgreSQL, against the same on Redis in the same rounds.
import { emit, progress } from "../report.ts";
import { type Rig, SERVER, type Storage, startRig } from "../rig.ts";
import { describe, medianRun, rate, rounds, stderrNote } from "./measure.ts";
import {
  BODY_LABEL,
  bodyLimit,
  type ReplaceData,
  type ReplaceRun,
  replaced,
  replaceName,
  runReplaceCase,
} from "./replace.ts";
import { type Body, configOf, count, median, ROUNDS } from "./setup.ts";

const BODIES: readonly Body[] = ["ndjson", "json"];

/**
 * Round after round, a fresh server on a fresh PostgreSQL and one on a fresh redis-server, and
 * each body's replace on both, the storage that goes first turning every round; every case
 * loads a site of its own first (not measured).
 */
export async function postgresReplacePart(data: ReplaceData): Promise<void> {
  const { maxBodyBytes, limitNote } = bodyLimit(data);
  const runs = new Map<string, ReplaceRun[]>();
  const ratios: Record<Body, number[]> = { ndjson: [], json: [] };
  let stderr = "";
  for (let round = 0; round < ROUNDS; round++) {
    const rigs = new Map<Storage, Rig>();
    try {
      for (const storage of ["postgres", "redis"] as const) {
        rigs.set(storage, await startRig(storage, `replace round ${round + 1}`, configOf(maxBodyBytes)));
      }
      const order: Storage[] = round % 2 === 0 ? ["postgres", "redis"] : ["redis", "postgres"];
      for (const body of BODIES) {
        for (const storage of order) {
          const run = await runReplaceCase(rigs.get(storage) as Rig, data, round, body, "replace", round === 0);
          const key = `${storage} ${body}`;
          runs.set(key, [...(runs.get(key) ?? []), run]);
          progress(
            `  round ${round + 1}, ${key} replace: ${count(Math.round(rate(run)))} products/s, ${describe(run.m, run.products)}; ${run.checks}`,
          );
          if (!run.ok) process.exitCode = 1;
        }
        const [pg, redis] = [runs.get(`postgres ${body}`)?.[round], runs.get(`redis ${body}`)?.[round]];
        ratios[body].push(rate(pg as ReplaceRun) / rate(redis as ReplaceRun));
      }
    } finally {
      for (const rig of rigs.values()) {
        stderr ||= stderrNote(rig.server);
        await rig.stop();
      }
    }
  }
  for (const body of BODIES) {
    const pg = runs.get(`postgres ${body}`) ?? [];
    const redis = runs.get(`redis ${body}`) ?? [];
    const failed = [...pg, ...redis].filter((run) => !run.ok).length;
    const [pgRun, redisRun] = [medianRun(pg), medianRun(redis)];
    emit({
      name: replaceName(body, "postgres"),
      scenario: `full sync: mode=replace of ${replaced(data)}, ${BODY_LABEL[body]}, postgres, ${SERVER}`,
      figure: median(pg.map(rate)),
      unit: "products/s",
      baseline: {
        label: "Redis",
        name: "the same replace through the same server on Redis (adapter-redis), same rounds",
        figure: median(redis.map(rate)),
        unit: "products/s",
      },
      ratio: median(ratios[body]),
      note:
        `${rounds(ROUNDS)}; ${failed === 0 ? "" : `**${failed} case(s) NOT as expected**; `}${pgRun.checks}; ${describe(pgRun.m, pgRun.products)}` +
        `; Redis: ${redisRun.checks}; ${describe(redisRun.m, redisRun.products)}; ${body === "json" ? limitNote : "every limit at its default"}${stderr}`,
    });
  }
}
