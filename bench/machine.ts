// What the results were measured on: CPU, cores, memory, OS, Node and the versions of the packages
// and tools.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import os from "node:os";

/** What the figures were measured on: they mean little without it. */
export interface Machine {
  readonly cpu: string;
  readonly cores: number;
  readonly memoryGiB: number;
  readonly os: string;
  readonly node: string;
  readonly packages: Record<string, string>;
}

const PACKAGES = [
  "@catalog-kit/catalog-core",
  "@catalog-kit/adapter-memory",
  "@catalog-kit/adapter-redis",
  "@catalog-kit/http-node",
  "valibot",
  "csv-parse",
  "papaparse",
  "ioredis",
  "fastify",
  "autocannon",
];

function versionOf(name: string): string | undefined {
  for (const root of ["node_modules", "../node_modules"]) {
    const file = new URL(`${root}/${name}/package.json`, import.meta.url);
    if (existsSync(file)) return (JSON.parse(readFileSync(file, "utf8")) as { version?: string }).version;
  }
  return undefined;
}

function redisVersion(): string | undefined {
  try {
    return /v=(\S+)/.exec(execFileSync("redis-server", ["--version"], { encoding: "utf8" }))?.[1];
  } catch {
    return undefined;
  }
}

/** The CPU, cores, Node and the versions of every package the figures depend on. */
export function describeMachine(): Machine {
  const packages: Record<string, string> = {};
  for (const name of PACKAGES) {
    const version = versionOf(name);
    if (version !== undefined) packages[name] = version;
  }
  const redis = redisVersion();
  if (redis !== undefined) packages["redis-server"] = redis;
  const cpus = os.cpus();
  return {
    cpu: cpus[0]?.model.trim() ?? "unknown",
    cores: cpus.length,
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    node: process.version,
    packages,
  };
}
