// Runs one problem over every channel that can carry it, each on a fresh site seeded as the case
// says, and checks that a rule has one answer whichever way the products arrive: the same status,
// code, detail, errorCount and entries (beyond their locations, which must name the same product
// and field), the same success body, and the same site afterwards.
import { compareIds, type Product, type Site } from "@catalog-kit/catalog-core";
import { type Assertion, expect } from "vitest";
import {
  build,
  CHANNELS,
  type Channel,
  type Comparable,
  CSV_CHANNELS,
  isPointerChannel,
  normalize,
  type Payload,
} from "./channels.ts";
import type { ReachRecording } from "./store-reach.ts";
import { type TestServer, TOKENS } from "./test-server.ts";

/** What a case expects of the answer every channel gives (the channels must also agree). */
export interface Expectation {
  readonly status: number;
  readonly code?: string;
  readonly errorCount?: number;
  readonly minErrorCount?: number;
  /** For a success: the counts (`message` aside). */
  readonly counts?: Readonly<Record<string, number | boolean | readonly string[]>>;
  /** Products the site holds afterwards, by id: the fields to check. */
  readonly stored?: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
}

/** One problem, sent every way it can be. */
export interface Case extends Payload {
  readonly name: string;
  /** Products stored before the request (valid, conflict-free). */
  readonly seed?: readonly Record<string, unknown>[];
  /**
   * Channels that cannot carry these products (asserted: an encoder that refuses a channel the
   * case does not list here is a bug of the test). The single-product channel is left out on its own
   * when the request has other than one product or bulk-only options; non-CSV channels when the
   * case is CSV text only.
   */
  readonly skip?: readonly Channel[];
  readonly expect: Expectation;
}

/** What one channel answered, and the site's products afterwards. */
export interface ChannelAnswer {
  readonly status: number;
  readonly body: Record<string, unknown>;
  readonly positions: readonly number[] | undefined;
  readonly stored: readonly Product[];
}

let sites = 0;
const RUN = Math.random().toString(36).slice(2, 8);

/** A site no other case uses, made to exist in the server's catalog. */
export function freshSite(server: TestServer): Site {
  const site = { siteId: `one-answer-${RUN}-${++sites}`, siteType: "one-answer" };
  server.catalog.addSite(site);
  return site;
}

/** Sends the payload over `channel` to a fresh site seeded with `seed`; `undefined` when the channel cannot carry it. */
export async function send(
  server: TestServer,
  channel: Channel,
  payload: Payload,
  seed: readonly Record<string, unknown>[] = [],
): Promise<ChannelAnswer | undefined> {
  const site = freshSite(server);
  const request = build(channel, payload, site);
  if (request === undefined) return undefined;
  if (seed.length > 0) await server.catalog.importProducts(site, seed);
  const response = await server.request("POST", request.path, {
    token: TOKENS.admin,
    headers: request.headers,
    body: request.body,
  });
  const text = await response.text();
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    body = { unparsable: text };
  }
  const { products: stored } = await server.catalog.listProducts(site, { limit: 1_000 });
  // Each import's own id, which no two answers share: its record is checked here, and the
  // answers compared without it.
  const { importId, ...answered } = body;
  if (importId !== undefined) {
    const record = await server.catalog.getImport(site, importId as string);
    expect(record.state).toBe(response.status === 200 ? "succeeded" : "failed");
  }
  return { status: response.status, body: answered, positions: request.positions, stored };
}

/** Every channel's answer to the payload (channels that cannot carry it are absent). */
export async function sendEverywhere(
  server: TestServer,
  payload: Payload,
  seed?: readonly Record<string, unknown>[],
): Promise<Partial<Record<Channel, ChannelAnswer>>> {
  const answers = await Promise.all(CHANNELS.map((channel) => send(server, channel, payload, seed)));
  const out: Partial<Record<Channel, ChannelAnswer>> = {};
  CHANNELS.forEach((channel, i) => {
    const answer = answers[i];
    if (answer !== undefined) out[channel] = answer;
  });
  return out;
}

/** The channels a case leaves out on its own, before any encoder has a say. */
function structuralSkips(c: Case): Channel[] {
  if (c.products === undefined) return CHANNELS.filter((channel) => !CSV_CHANNELS.includes(channel));
  const single = c.products.length === 1 && c.query?.mode === undefined && c.query?.allowEmpty === undefined;
  return single ? [] : ["single"];
}

/** `expect` (a property must throw to shrink) or `expect.soft` (a case reports every disagreement). */
export type Check = <T>(actual: T, message?: string) => Assertion<T>;

const mapAll = <T>(keys: readonly Channel[], value: (channel: Channel) => T) =>
  Object.fromEntries(keys.map((key) => [key, value(key)]));

/**
 * Asserts that the channels agree: answers normalized (locations mapped to the product index and
 * field), the pointers inside the product among the channels that have them, and the sites
 * afterwards. Soft assertions: every disagreement is reported, not just the first.
 */
export function expectOneAnswer(
  answers: Partial<Record<Channel, ChannelAnswer>>,
  check: Check = expect.soft,
): Comparable | undefined {
  const channels = CHANNELS.filter((channel) => answers[channel] !== undefined);
  const answerOf = (channel: Channel) => answers[channel] as ChannelAnswer;
  const reference = channels[0];
  if (reference === undefined) return undefined;
  const normalized = (channel: Channel, withPaths: boolean) => {
    const { status, body, positions } = answerOf(channel);
    return normalize(channel, status, body, positions, withPaths);
  };
  const agreed = normalized(reference, false);
  check(
    mapAll(channels, (c) => normalized(c, false)),
    "answers by channel",
  ).toEqual(mapAll(channels, () => agreed));
  const pointers = channels.filter(isPointerChannel);
  const first = pointers[0];
  if (first !== undefined) {
    const withPaths = normalized(first, true);
    check(
      mapAll(pointers, (c) => normalized(c, true)),
      "pointers inside the product, by channel",
    ).toEqual(mapAll(pointers, () => withPaths));
  }
  const stored = answerOf(reference).stored;
  check(
    mapAll(channels, (c) => answerOf(c).stored),
    "the site afterwards, by channel",
  ).toEqual(mapAll(channels, () => stored));
  return agreed;
}

const byIdOrder = (products: readonly Record<string, unknown>[]) =>
  [...products].sort((a, b) => compareIds(String(a.id), String(b.id)));

/** Checks the expectation on an agreed answer, and that a refused request wrote nothing. */
export function expectAnswer(
  agreed: Comparable,
  expected: Expectation,
  stored: readonly Product[],
  seed: readonly Record<string, unknown>[] = [],
): void {
  const body = agreed.body;
  expect.soft(agreed.status, "status").toBe(expected.status);
  if (expected.code !== undefined) expect.soft(body.code, "code").toBe(expected.code);
  if (expected.errorCount !== undefined) expect.soft(body.errorCount, "errorCount").toBe(expected.errorCount);
  if (expected.minErrorCount !== undefined) {
    expect.soft(body.errorCount, "errorCount").toBeGreaterThanOrEqual(expected.minErrorCount);
    expect.soft(body.errorsListed, "entries in errors").toBeGreaterThanOrEqual(expected.minErrorCount);
  }
  if (expected.status >= 400) {
    expect.soft(body.errorsListed, "errors listed").toBe(Math.min(Number(body.errorCount), 100));
    expect.soft(stored, "the site after a refused request: as seeded").toEqual(byIdOrder(seed));
  }
  if (expected.counts !== undefined) {
    const { message: _message, ...counts } = body;
    expect.soft(counts, "counts").toEqual(expected.counts);
  }
  if (expected.stored !== undefined) {
    const byId = Object.fromEntries(stored.map((product) => [product.id, product]));
    expect.soft(Object.keys(byId).sort(), "ids stored").toEqual(Object.keys(expected.stored).sort());
    for (const [id, fields] of Object.entries(expected.stored)) {
      expect.soft(byId[id], `stored product ${id}`).toMatchObject(fields);
    }
  }
}

/**
 * Whether a case's request reaches the store: a success, a conflict the store judges, or a merge
 * (which reads the products its records name). Every other refusal (invalid products, a
 * malformed document) comes before it, alike on every store.
 */
export function reachesStore(c: Case): boolean {
  return c.expect.status < 400 || c.expect.code === "SKU_CONFLICT" || c.query?.mode === "merge";
}

/**
 * Runs a case: every channel it can use (exactly those), the channels agree, the answer is the
 * expected one; and, given the server's store `reach`, that the requests reach it as `reachesStore` says.
 */
export async function runCase(server: TestServer, c: Case, reach?: ReachRecording): Promise<void> {
  reach?.reset();
  const answers = await sendEverywhere(server, c, c.seed);
  if (reach !== undefined) {
    // A seeded site's one beginImport is the seed's own.
    const ownCalls = c.seed !== undefined && c.seed.length > 0 ? 1 : 0;
    const reached = [...reach.calls().values()].some((calls) => calls > ownCalls);
    expect(reached, "a request reached the store").toBe(reachesStore(c));
  }
  const used = CHANNELS.filter((channel) => answers[channel] !== undefined);
  const skipped = new Set([...structuralSkips(c), ...(c.skip ?? [])]);
  expect(used, "channels that can carry this case").toEqual(CHANNELS.filter((channel) => !skipped.has(channel)));
  expect(used.length, "channels to compare").toBeGreaterThanOrEqual(2);
  const agreed = expectOneAnswer(answers) as Comparable;
  expectAnswer(agreed, c.expect, (answers[used[0] as Channel] as ChannelAnswer).stored, c.seed);
}
