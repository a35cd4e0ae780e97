// The replace part of the sync scenario: a site synced with `mode=replace` to 90 % of its
// products, against the plain upsert of the same body into an equal fresh site, round after round.
import type { Product, Site } from "@catalog-kit/catalog-core";
import { post, SEED } from "../body.ts";
import { Connection, problemCode } from "../client.ts";
import { generateProducts } from "../data.ts";
import { emit, progress } from "../report.ts";
import { type Rig, SERVER, type Storage, startRig } from "../rig.ts";
import { describe, longestCall, type Measured, measure, medianRun, rate, rounds, stderrNote } from "./measure.ts";
import {
  API,
  type Body,
  configOf,
  count,
  DEFAULT_MAX_BODY_BYTES,
  fixed,
  load,
  MB,
  type Mode,
  median,
  megabytes,
  REPLACE_CASES,
  REPLACE_PRODUCTS,
  ROUNDS,
  replaceSite,
  requireSummary,
  type Summary,
  siteQuery,
  TOKEN,
  walkList,
} from "./setup.ts";

/** The products of the replaced site, and the bodies every case sends. */
export interface ReplaceData {
  /** All of them, as NDJSON: what each site holds before its case. */
  readonly loadBody: Buffer;
  /** Every product but each tenth (index 0, 10, 20...), as NDJSON. */
  readonly keptNdjson: Buffer;
  /** The same, as the `products` array of a bulk JSON envelope. */
  readonly keptJsonArray: string;
  readonly kept: number;
  readonly removed: number;
  readonly removedId: string;
  readonly keptId: string;
}

/** The replaced site's products and the bodies of every case, built before they are timed. */
export function replaceData(): ReplaceData {
  const products = generateProducts(REPLACE_PRODUCTS, SEED, 0);
  const kept = products.filter((_, i) => i % 10 !== 0);
  const ndjson = (list: readonly Product[]) => Buffer.from(list.map((p) => `${JSON.stringify(p)}\n`).join(""));
  return {
    loadBody: ndjson(products),
    keptNdjson: ndjson(kept),
    keptJsonArray: JSON.stringify(kept),
    kept: kept.length,
    removed: products.length - kept.length,
    removedId: (products[0] as Product).id,
    keptId: (products[1] as Product).id,
  };
}

/** The bulk JSON envelope of `site` around a `products` array already encoded. */
export const envelopeOf = (site: Site, array: string) =>
  Buffer.from(
    `{"siteId":${JSON.stringify(site.siteId)},"siteType":${JSON.stringify(site.siteType)},"products":${array}}`,
  );

/** One round's figures of one replace case, and its checks. */
export interface ReplaceRun {
  readonly m: Measured;
  readonly products: number;
  readonly summary: Summary;
  /** What was checked afterwards, and whether it held. */
  readonly checks: string;
  readonly ok: boolean;
}

/** Loads a fresh site, then sends the 90 % as `body` with `mode`, measured; checks the site afterwards. */
export async function runReplaceCase(
  rigged: Rig,
  data: ReplaceData,
  round: number,
  body: Body,
  mode: Mode,
  walk: boolean,
): Promise<ReplaceRun> {
  const { server } = rigged;
  const site = replaceSite(round, body, mode);
  await load(server, site, REPLACE_PRODUCTS, data.loadBody);
  const payload = body === "ndjson" ? data.keptNdjson : envelopeOf(site, data.keptJsonArray);
  const path =
    body === "ndjson"
      ? `${API}/bulk?${siteQuery(site)}&mode=${mode}`
      : `${API}/bulk${mode === "replace" ? "?mode=replace" : ""}`;
  const type = body === "ndjson" ? "application/x-ndjson" : "application/json";
  const { m, result } = await measure(rigged, () => post(server, TOKEN, path, type, payload));
  const summary = requireSummary(result, `${mode} ${body} on ${site.siteId}`, data.kept);
  const connection = new Connection(server.url, TOKEN);
  const removed = await connection.send("GET", `${API}/${data.removedId}?${siteQuery(site)}`);
  const kept = await connection.send("GET", `${API}/${data.keptId}?${siteQuery(site)}`);
  connection.close();
  const expected = mode === "replace" ? data.kept : REPLACE_PRODUCTS;
  const listed = walk ? (await walkList(server, site)).products : undefined;
  const checks = [
    mode === "replace" ? summary.deleted === data.removed : summary.deleted === undefined,
    mode === "replace"
      ? removed.status === 400 && problemCode(removed.body) === "PRODUCT_NOT_FOUND"
      : removed.status === 200,
    kept.status === 200,
    listed === undefined || listed === expected,
  ];
  const ok = checks.every(Boolean);
  return {
    m,
    products: data.kept,
    summary,
    ok,
    checks:
      `${ok ? "as expected" : "**NOT as expected**"}: ${summary.created} created, ${summary.updated} updated, ${summary.unchanged} unchanged, deleted ${summary.deleted ?? "absent"}` +
      `; then GET of a removed product: ${removed.status}${removed.status === 200 ? "" : ` ${problemCode(removed.body)}`}, of a kept one: ${kept.status}` +
      (listed === undefined ? "" : `; the list walk found ${count(listed)} products (expected ${count(expected)})`),
  };
}

/** How the rows name each body. */
/** A replace's short name: the site's size, the body, the storage. */
export const replaceName = (body: Body, storage: Storage) =>
  `mode=replace ${count(REPLACE_PRODUCTS)}, ${body === "ndjson" ? "NDJSON" : "bulk JSON"}, ${storage}`;

export const BODY_LABEL: Readonly<Record<Body, string>> = {
  ndjson: "raw NDJSON body (`Content-Type: application/x-ndjson`, streamed import)",
  json: "one bulk JSON envelope (`{ siteId, siteType, products }`)",
};

/**
 * The body limit of the replace part: the envelope is read whole, so above the default limit
 * the limit goes up for this part (undefined: the default); and the note that says so.
 */
export function bodyLimit(data: ReplaceData): { maxBodyBytes: number | undefined; limitNote: string } {
  const jsonBytes = envelopeOf(replaceSite(0, "json", "replace"), data.keptJsonArray).length;
  const maxBodyBytes =
    jsonBytes > DEFAULT_MAX_BODY_BYTES ? Math.ceil((jsonBytes + MB) / (16 * MB)) * 16 * MB : undefined;
  const limitNote =
    maxBodyBytes === undefined
      ? `every limit at its default (the envelope is ${fixed(megabytes(jsonBytes))} MiB)`
      : `limits.maxBodyBytes raised to ${fixed(megabytes(maxBodyBytes), 0)} MiB in the config file for this part (the envelope is ${fixed(megabytes(jsonBytes))} MiB, above the default 50 MiB); every other limit at its default`;
  return { maxBodyBytes, limitNote };
}

/** What the rows say was replaced. */
export const replaced = (data: ReplaceData) =>
  `a site of ${count(REPLACE_PRODUCTS)} products with ${count(data.kept)} of them (every tenth gone)`;

/** Replace against upsert of the same body into an equal fresh site, round after round; a fresh rig a round. */
export async function replacePart(storage: Storage, data: ReplaceData): Promise<void> {
  const { maxBodyBytes, limitNote } = bodyLimit(data);
  const runs = new Map<string, ReplaceRun[]>();
  const ratios: Record<Body, number[]> = { ndjson: [], json: [] };
  let stderr = "";
  for (let round = 0; round < ROUNDS; round++) {
    const rigged = await startRig(storage, `replace round ${round + 1}`, configOf(maxBodyBytes));
    try {
      // Each case loads a site of its own in the same server; the order reverses every round,
      // so that the server's growing heap falls on replace and upsert alike.
      const order = round % 2 === 0 ? REPLACE_CASES : [...REPLACE_CASES].reverse();
      for (const [body, mode] of order) {
        const run = await runReplaceCase(rigged, data, round, body, mode, round === 0);
        const key = `${body} ${mode}`;
        runs.set(key, [...(runs.get(key) ?? []), run]);
        progress(
          `  round ${round + 1}, ${key}: ${count(Math.round(rate(run)))} products/s, ${describe(run.m, run.products)}; ${run.checks}`,
        );
        if (!run.ok) process.exitCode = 1;
      }
    } finally {
      stderr ||= stderrNote(rigged.server);
      await rigged.stop();
    }
    for (const body of ["ndjson", "json"] as const) {
      const replace = runs.get(`${body} replace`)?.[round] as ReplaceRun;
      const upsert = runs.get(`${body} upsert`)?.[round] as ReplaceRun;
      ratios[body].push(rate(replace) / rate(upsert));
    }
  }
  const what = replaced(data);
  for (const body of ["ndjson", "json"] as const) {
    const replaces = runs.get(`${body} replace`) ?? [];
    const upserts = runs.get(`${body} upsert`) ?? [];
    const replace = medianRun(replaces);
    const upsert = medianRun(upserts);
    const upsertBaseline = {
      label: "mode=upsert",
      name: `mode=upsert of the same body into an equal fresh site of ${count(REPLACE_PRODUCTS)}`,
    };
    const short = replaceName(body, storage);
    const subject = `full sync: mode=replace of ${what}, ${BODY_LABEL[body]}, ${storage}, ${SERVER}`;
    const failed = [...replaces, ...upserts].filter((run) => !run.ok).length;
    emit({
      name: short,
      scenario: subject,
      figure: median(replaces.map(rate)),
      unit: "products/s",
      baseline: { ...upsertBaseline, figure: median(upserts.map(rate)), unit: "products/s" },
      ratio: median(ratios[body]),
      note:
        `${rounds(ROUNDS)}; ${failed === 0 ? "" : `**${failed} case(s) NOT as expected**; `}${replace.checks}; ${describe(replace.m, replace.products)}` +
        `; upsert: ${upsert.checks}; ${describe(upsert.m, upsert.products)}; ${body === "json" ? limitNote : "every limit at its default"}${stderr}`,
    });
    if (replace.m.redis !== undefined && upsert.m.redis !== undefined) {
      const call = longestCall(replaces, upserts);
      emit({
        name: `longest script call, ${short}`,
        scenario: `longest single Redis script call, ${subject}`,
        figure: call.figure,
        unit: "ms",
        baseline: { ...upsertBaseline, figure: call.baseline, unit: "ms" },
        note: call.note,
      });
    }
  }
}
