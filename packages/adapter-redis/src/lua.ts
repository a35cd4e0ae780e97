// How a script of the store is defined and sent: its keys declared by name, its arguments encoded
// from named ones, its reply decoded (reply.ts), its source behind the shared prelude
// (prelude.ts), sent by SHA-1. The scripts themselves are in scripts/, one module each.
import { createHash } from "node:crypto";
import type { ImportCounts } from "@catalog-kit/catalog-core";
import type { Cluster, Redis } from "ioredis";
import type { KeyName, ScriptKeys } from "./keys.ts";
import { PRELUDE } from "./prelude.ts";
import { type Decoders, decodeReply, type ReplyOf } from "./reply.ts";

/** One element of a script's ARGV. */
export type Arg = string | Buffer | number;

/** The arguments of a script that checks and renews the site lock: the holder's token, and how long to hold it. */
export interface LockArgs {
  readonly token: string;
  readonly lockTtlMs: number;
}

/**
 * An idempotency key for a publishing script to check and record: the fingerprint, and how long
 * the record is kept (whole milliseconds: see `checkedKey` in `idempotency.ts`).
 */
export interface RecordArgs {
  readonly fingerprint: string;
  readonly retainMs: number;
}

/** The ARGV of a key to record: the fingerprint as a JSON string, the retention; for none, two empty strings. */
export function recordArgv(record: RecordArgs | undefined): Arg[] {
  return record === undefined ? ["", ""] : [JSON.stringify(record.fingerprint), record.retainMs];
}

/** The ARGV of the counts a key records: created, updated, unchanged, deleted (or ""); for none, zeros. */
export function countsArgv(counts: ImportCounts | undefined): Arg[] {
  return counts === undefined
    ? [0, 0, 0, ""]
    : [counts.created, counts.updated, counts.unchanged, counts.deleted ?? ""];
}

/** Where a page of an id index starts, as ZRANGEBYLEX takes it: after `after`, or at the first id. */
export function lexAfter(after: string | undefined): string {
  return after === undefined ? "-" : `(${after}`;
}

/**
 * A Lua script: the keys it declares (by name, in the order it receives them), its source and
 * SHA-1, how its ARGV is made from named arguments, and how its reply is decoded. Its Lua reads
 * the keys by name from the table `K` (`K.products`), so the order lives here only.
 */
export interface Script<Name extends KeyName = KeyName, Args = never, Reply = unknown> {
  readonly name: string;
  readonly keys: readonly Name[];
  readonly lua: string;
  readonly sha: string;
  /** The ARGV the Lua reads, from the script's named arguments. */
  encode(args: Args): readonly Arg[];
  /** What the script answered, as one of its outcomes. */
  decode(raw: unknown): Reply;
}

/** The decoded reply of a script. */
export type Reply<S> = S extends { decode(raw: unknown): infer R } ? R : never;

/** A script's definition: its Lua body (the prelude and the `K` table go in front), ARGV, replies. */
export interface ScriptDefinition<Name extends KeyName, Args, D extends Decoders> {
  readonly name: string;
  readonly keys: readonly Name[];
  readonly lua: string;
  readonly args: (args: Args) => readonly Arg[];
  readonly replies: D;
}

export function script<Name extends KeyName, Args, D extends Decoders>(
  definition: ScriptDefinition<Name, Args, D>,
): Script<Name, Args, ReplyOf<D>> {
  const { name, keys, args, replies } = definition;
  const names = keys.map((key, i) => `${key} = KEYS[${i + 1}]`).join(", ");
  const lua = `${PRELUDE}\nlocal K = { ${names} }\n${definition.lua.trim()}\n`;
  return {
    name,
    keys,
    lua,
    sha: createHash("sha1").update(lua).digest("hex"),
    encode: args,
    decode: (raw) => decodeReply(name, replies, raw),
  };
}

/**
 * Runs a script by SHA-1 on the keys it declares, with an ARGV already encoded, sending its
 * source once when the server answers NOSCRIPT (after a restart, a failover or SCRIPT FLUSH):
 * Redis refuses before running anything, so the second send cannot run the script twice.
 * Returns the reply as Redis sent it.
 */
export async function runScript<Name extends KeyName>(
  client: Redis | Cluster,
  script: Pick<Script<Name>, "keys" | "lua" | "sha">,
  keys: Pick<ScriptKeys, Name>,
  args: readonly Arg[],
): Promise<unknown> {
  const argv: Arg[] = [script.sha, script.keys.length];
  for (const name of script.keys) argv.push(keys[name]);
  for (const arg of args) argv.push(arg);
  try {
    return await client.call("EVALSHA", argv);
  } catch (error) {
    if (!(error instanceof Error) || !error.message.startsWith("NOSCRIPT")) throw error;
    argv[0] = script.lua;
    return await client.call("EVAL", argv);
  }
}

/** Runs a script on a client with named arguments, and decodes its reply (for tests and tools). */
export async function callScript<Name extends KeyName, Args, Reply>(
  client: Redis | Cluster,
  script: Script<Name, Args, Reply>,
  keys: Pick<ScriptKeys, Name>,
  args: NoInfer<Args>,
): Promise<Reply> {
  return script.decode(await runScript(client, script, keys, script.encode(args)));
}
