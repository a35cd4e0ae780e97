// catalog-kit config check: a configuration validated by the server's own loader, its settings
// printed with every secret redacted, or the bad key named with exit code 1.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SITE } from "./support/catalog-server.ts";
import { runCli } from "./support/run-cli.ts";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "catalog-cli-config-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const WEBHOOK_SECRET = `whsec_${Buffer.alloc(24, 5).toString("base64")}`;

describe("catalog-kit config check", () => {
  it("validates a configuration and prints its settings with secrets redacted", async () => {
    const good = join(dir, "good.json");
    await writeFile(
      good,
      JSON.stringify({
        sites: [SITE],
        tokens: [{ token: "very-secret-token", sites: "*" }],
        storage: { adapter: "redis", url: "redis://user:hunter2@127.0.0.1:6379" },
        webhooks: [{ url: "https://erp.example/hooks", secrets: [WEBHOOK_SECRET], sites: "*" }],
      }),
    );
    const ok = await runCli(["config", "check", good]);
    expect(ok.code).toBe(0);
    expect(ok.stdout).not.toContain(WEBHOOK_SECRET.slice("whsec_".length));
    expect(JSON.parse(ok.stdout).webhooks).toEqual([
      {
        url: "https://erp.example/hooks",
        secrets: ["<redacted>"],
        events: ["import.succeeded", "import.failed"],
        sites: "*",
      },
    ]);
    expect(ok.stdout).not.toContain("very-secret-token");
    expect(ok.stdout).not.toContain("hunter2");
    expect(JSON.parse(ok.stdout)).toMatchObject({
      tokens: [{ token: "<redacted>" }],
      limits: { maxStreamBytes: 1_073_741_824 },
      history: { keep: 1_000, maxAgeMs: 2_592_000_000, maxReportProblems: 10_000 },
    });
    const bad = join(dir, "bad.json");
    await writeFile(
      bad,
      JSON.stringify({ sites: [SITE], tokens: [{ token: "t", sites: "*" }], limits: { maxBodyBytez: 1 } }),
    );
    const refused = await runCli(["config", "check", bad]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("maxBodyBytez");
  });

  it("prints the history as configured, false included, and refuses no history beside webhooks", async () => {
    const file = join(dir, "history.json");
    const config = { sites: [SITE], tokens: [{ token: "t", sites: "*" }], storage: { adapter: "memory" } };
    await writeFile(file, JSON.stringify({ ...config, history: { keep: 50 } }));
    const kept = await runCli(["config", "check", file]);
    expect(kept.code).toBe(0);
    expect(JSON.parse(kept.stdout).history).toEqual({ keep: 50, maxAgeMs: 2_592_000_000, maxReportProblems: 10_000 });
    await writeFile(file, JSON.stringify({ ...config, history: false }));
    const off = await runCli(["config", "check", file]);
    expect(off.code).toBe(0);
    expect(JSON.parse(off.stdout).history).toBe(false);
    const webhooks = [{ url: "https://erp.example/hooks", secrets: [WEBHOOK_SECRET], sites: "*" }];
    await writeFile(file, JSON.stringify({ ...config, history: false, webhooks }));
    const refused = await runCli(["config", "check", file]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('history: Must not be false while "webhooks" are configured');
  });

  it("redacts a PostgreSQL password, in the URL's user part or as its parameter, and prints the defaults", async () => {
    const file = join(dir, "postgres.json");
    const url = "postgres://app:hunter2@127.0.0.1:5432/catalog?password=swordfish&sslmode=disable";
    const storage = { adapter: "postgres", url };
    await writeFile(file, JSON.stringify({ sites: [SITE], tokens: [{ token: "t", sites: "*" }], storage }));
    const ok = await runCli(["config", "check", file]);
    expect(ok.code).toBe(0);
    expect(ok.stdout).not.toContain("hunter2");
    expect(ok.stdout).not.toContain("swordfish");
    expect(JSON.parse(ok.stdout).storage).toEqual({
      adapter: "postgres",
      url: "postgres://app:redacted@127.0.0.1:5432/catalog?password=redacted&sslmode=disable",
      schema: "catalog",
      poolSize: 10,
      queryTimeoutMs: 10_000,
    });
  });

  it("validates an adapter module's options with its schema, prints them with its defaults, secrets redacted", async () => {
    // An adapter module beside the file, its schema written by hand; checking never opens the store.
    await writeFile(
      join(dir, "acme-store.js"),
      `export const schema = { "~standard": { version: 1, vendor: "acme", validate(value) {
        if (typeof value.region !== "string") return { issues: [{ message: "Must be a string", path: ["region"] }] };
        return { value: { endpoint: "https://reader:hunter2@store.example/", ...value } };
      } } };
      export function create() { throw new Error("config check opened the store"); }\n`,
    );
    const config = (storage: object) =>
      JSON.stringify({ sites: [SITE], tokens: [{ token: "t", sites: "*" }], storage });
    const file = join(dir, "acme.json");
    await writeFile(file, config({ adapter: "./acme-store.js", region: "eu", apiToken: "swordfish" }));
    const ok = await runCli(["config", "check", file]);
    expect(ok.stderr).toBe(`${file}: valid\n`);
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout).storage).toEqual({
      adapter: "./acme-store.js",
      endpoint: "https://reader:redacted@store.example/",
      region: "eu",
      apiToken: "<redacted>",
    });
    await writeFile(file, config({ adapter: "./acme-store.js", region: 1 }));
    const refused = await runCli(["config", "check", file]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("  - storage.region: Must be a string\n");
  });
});
