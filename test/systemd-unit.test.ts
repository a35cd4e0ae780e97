// The systemd unit of examples/: what the server's README promises of it, and, where
// systemd-analyze exists, systemd's own reading of it and of its hardening.
import { execFile, execFileSync } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const UNIT = "catalog-kit.service";
const text = await readFile(`${ROOT}examples/${UNIT}`, "utf8");
// Where the README installs the command; systemd wants the executable to exist, so the unit is
// verified as a copy that points at this checkout's command instead.
const INSTALL = "/opt/catalog-kit";
// http-node's server waits this long for requests in flight after a SIGTERM (shutdownTimeout).
const DRAIN_SECONDS = 30;

/** The unit's settings, section by section, every value of a key that may repeat. */
function parseUnit(unit: string): Map<string, Map<string, string[]>> {
  const sections = new Map<string, Map<string, string[]>>();
  let current: Map<string, string[]> | undefined;
  for (const line of unit.split("\n").map((raw) => raw.trim())) {
    if (line === "" || line.startsWith("#") || line.startsWith(";")) continue;
    const header = /^\[(.+)\]$/.exec(line);
    if (header !== null) {
      current = new Map();
      sections.set(header[1] as string, current);
      continue;
    }
    const setting = /^([A-Za-z]+)=(.*)$/.exec(line);
    if (setting === null || current === undefined) throw new Error(`not a unit setting: ${line}`);
    const [, key, value] = setting as unknown as [string, string, string];
    current.set(key, [...(current.get(key) ?? []), value]);
  }
  return sections;
}

const unit = parseUnit(text);
const service = unit.get("Service") ?? new Map<string, string[]>();
const one = (key: string) => service.get(key)?.at(-1);

describe("examples/catalog-kit.service", () => {
  it("has the three sections, a description and a target to start with", () => {
    expect([...unit.keys()]).toEqual(["Unit", "Service", "Install"]);
    expect(unit.get("Unit")?.get("Description")).toHaveLength(1);
    expect(unit.get("Install")?.get("WantedBy")).toEqual(["multi-user.target"]);
  });

  it("runs the installed catalog-kit serve, with only the variables the server reads", () => {
    expect(one("ExecStart")).toBe(`${INSTALL}/node_modules/.bin/catalog-kit serve`);
    const variables = (service.get("Environment") ?? []).map((setting) => setting.split("=")[0]);
    expect(variables).toContain("CATALOG_CONFIG");
    for (const name of variables) expect(["PORT", "HOST", "CATALOG_CONFIG", "ACCESS_LOG"]).toContain(name);
  });

  it("stops with one SIGTERM to the server, and waits out its drain before a SIGKILL", () => {
    expect(one("KillSignal")).toBe("SIGTERM");
    expect(one("KillMode")).toBe("mixed");
    expect(Number(one("TimeoutStopSec"))).toBeGreaterThan(DRAIN_SECONDS);
    expect(one("Restart")).toBe("on-failure");
  });

  it("runs unprivileged, on a read-only system, with V8's JIT still allowed", () => {
    for (const key of ["DynamicUser", "NoNewPrivileges", "PrivateTmp", "PrivateDevices", "RestrictSUIDSGID"]) {
      expect({ key, value: one(key) }).toEqual({ key, value: "yes" });
    }
    expect(one("ProtectSystem")).toBe("strict");
    expect(one("CapabilityBoundingSet")).toBe("");
    expect(one("MemoryDenyWriteExecute")).toBeUndefined();
  });
});

const hasAnalyze = (() => {
  try {
    execFileSync("systemd-analyze", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();

describe.runIf(hasAnalyze)("systemd-analyze", () => {
  let dir = "";
  let file = "";
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "catalog-unit-"));
    await mkdir(join(dir, "node_modules", ".bin"), { recursive: true });
    await symlink(`${ROOT}packages/cli/bin/catalog-kit.js`, join(dir, "node_modules", ".bin", "catalog-kit"));
    file = join(dir, UNIT);
    await writeFile(file, text.replaceAll(`${INSTALL}/`, `${dir}/`));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));
  const analyze = promisify(execFile);

  it("verify finds nothing to say about the unit", async () => {
    const { stdout, stderr } = await analyze("systemd-analyze", ["verify", file]);
    expect(stdout + stderr).toBe("");
  });

  it("security rates the unit's exposure below 3.0 of 10", async () => {
    await expect(
      analyze("systemd-analyze", ["security", "--offline=true", "--threshold=30", file]),
    ).resolves.toBeDefined();
  });
});
