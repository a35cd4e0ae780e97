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
  /** How its idle cores wait (Linux's cpuidle driver), where the system tells. */
  readonly idle: string | undefined;
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

// On a virtual machine whose idle cores halt at once, every answer that wakes the load generator
// costs the server a wake-up through the hypervisor: a few µs of its CPU a request (README, HTTP
// GET). Results of two machines compare only if their cores wait alike.
function cpuIdle(): string | undefined {
  try {
    const driver = readFileSync("/sys/devices/system/cpu/cpuidle/current_driver", "utf8").trim();
    if (driver !== "haltpoll") return driver;
    const ns = readFileSync("/sys/module/haltpoll/parameters/guest_halt_poll_ns", "utf8").trim();
    return `haltpoll, polling ${ns} ns before a core halts`;
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
    idle: cpuIdle(),
    node: process.version,
    packages,
  };
}

/** The machine as the reports' "Machine:" line gives it. */
export function machineLine(machine: Machine): string {
  const idle = machine.idle === undefined ? "" : `; idle cores: ${machine.idle}`;
  return `${machine.cpu}, ${machine.cores} cores, ${machine.memoryGiB} GiB, ${machine.os}${idle}`;
}
