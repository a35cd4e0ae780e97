// The command as users meet it: the packages built and packed, the tarballs installed in a folder
// of their own outside the repository (the cli and what it depends on, nothing else of the
// workspace): the installed command's version and help, `catalog-kit serve` answering on the
// memory store, and `import` and `export` against it.
import { execFile, spawn } from "node:child_process";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { publishedPackages, ROOT } from "@catalog-kit/test-support";
import { withShownImportIds } from "@catalog-kit/test-support/http";
import { afterAll, expect, it } from "vitest";

// What is published, in the order each builds on the one before.
const PUBLISHED = publishedPackages();
const run = promisify(execFile);

let dir: string | undefined;
afterAll(async () => {
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

async function npm(cwd: string, ...args: string[]): Promise<string> {
  const { stdout } = await run("npm", [...args, "--no-audit", "--no-fund", "--loglevel=error"], {
    cwd,
    maxBuffer: 16 * 1024 * 1024,
  });
  return stdout;
}

it("npm install of the packed cli gives a catalog-kit that serves, imports and exports", async () => {
  const workspaces = PUBLISHED.flatMap((name) => ["-w", `packages/${name}`]);
  await npm(ROOT, "run", "build", ...workspaces);
  dir = await mkdtemp(join(tmpdir(), "catalog-packed-"));
  await npm(ROOT, "pack", "--pack-destination", dir, ...workspaces);
  const tarballs = (await readdir(dir)).filter((file) => file.endsWith(".tgz"));
  expect(tarballs).toHaveLength(PUBLISHED.length);
  const tarball = (name: string) => `file:./${tarballs.find((file) => file === `catalog-kit-${name}-0.1.0.tgz`)}`;
  // Only the cli is asked for; the workspace's other packages are not on a registry, so the cli's
  // dependencies on them (and their peers) resolve to their tarballs.
  await writeFile(
    join(dir, "package.json"),
    JSON.stringify({
      private: true,
      dependencies: { "@catalog-kit/cli": tarball("cli") },
      overrides: Object.fromEntries(
        PUBLISHED.filter((name) => name !== "cli").map((name) => [`@catalog-kit/${name}`, tarball(name)]),
      ),
    }),
  );
  await npm(dir, "install", "--prefer-offline");
  const bin = join(dir, "node_modules", ".bin", "catalog-kit");
  const env = { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "" };
  const command = (args: string[], extra: Record<string, string> = {}) =>
    run(bin, args, { cwd: dir as string, env: { ...env, ...extra }, timeout: 30_000 });

  expect((await command(["--version"])).stdout).toBe("0.1.0\n");

  // A TypeScript user of the installed adapter sees pg's types in its options, not `any`: the
  // package brings the declarations its own declarations import.
  await writeFile(
    join(dir, "types.ts"),
    'import type { PostgresStoreOptions } from "@catalog-kit/adapter-postgres";\n' +
      "// @ts-expect-error a number is not a pg.Pool\n" +
      "export const pool: PostgresStoreOptions['pool'] = 42;\n",
  );
  const compilerOptions = { module: "NodeNext", strict: true, noEmit: true, skipLibCheck: true, types: [] };
  await writeFile(join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions, files: ["types.ts"] }));
  const tsc = join(ROOT, "node_modules", "typescript", "bin", "tsc");
  await expect(run(process.execPath, [tsc, "-p", "tsconfig.json"], { cwd: dir })).resolves.toBeDefined();
  // Its help, and nothing else: a server started here would keep the call from returning.
  expect((await command(["serve", "--help"], { PORT: "0" })).stdout).toContain("Usage: catalog-kit serve");

  const server = spawn(bin, ["serve"], {
    cwd: dir,
    env: { ...env, PORT: "0" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const exited = new Promise<number | null>((resolve) => server.once("exit", (code) => resolve(code)));
  let out = "";
  let err = "";
  server.stderr.on("data", (chunk: Buffer) => {
    err += chunk;
  });
  try {
    const url = await new Promise<string>((resolve, reject) => {
      server.stdout.on("data", (chunk: Buffer) => {
        out += chunk;
        const listening = /listening on (http:\/\/\S+)/.exec(out)?.[1];
        // Demo mode prints its token after the address.
        if (listening !== undefined && /Access token: \S+\n/.test(out)) resolve(listening);
      });
      void exited.then((code) => reject(new Error(`catalog-kit serve exited with ${code}:\n${out}\n${err}`)));
    });
    const health = await fetch(`${url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: "ok" });

    const token = /Access token: (\S+)/.exec(out)?.[1] as string;
    const file = join(dir, "catalog.ndjson");
    const product = { id: "p1", sku: "S-1", title: "T", available: true, featured_image: "f", url: "u" };
    await writeFile(file, `${JSON.stringify(product)}\n`);
    const site = { CATALOG_URL: url, CATALOG_TOKEN: token };
    const imported = await command(["import", file, "--site", "demo/demo", "--json"], site);
    expect(JSON.parse(imported.stdout)).toMatchObject({ total: 1, created: 1 });
    const exported = await command(["export", "--site", "demo/demo", "--format", "ndjson"], site);
    expect(JSON.parse(exported.stdout)).toMatchObject(product);

    // The README's in-process snippet, as plain JavaScript on the installed packages.
    const readme = await readFile(join(ROOT, "README.md"), "utf8");
    const section = readme.slice(readme.indexOf("\n## Use it in-process\n"));
    const block = (lang: string) => new RegExp(`^\`\`\`${lang}\\n([\\s\\S]*?)^\`\`\`$`, "m").exec(section)?.[1] ?? "";
    await writeFile(join(dir, "snippet.mjs"), block("ts"));
    const snippet = await run(process.execPath, ["snippet.mjs"], { cwd: dir, env, timeout: 30_000 });
    expect(withShownImportIds(snippet.stdout, block("text"))).toBe(block("text"));
    server.kill("SIGTERM");
    expect(await exited).toBe(0);
    expect(err).toBe("");
  } finally {
    if (server.exitCode === null && server.signalCode === null) server.kill("SIGKILL");
  }
}, 240_000);
