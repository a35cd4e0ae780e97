// What the npm registry shows of each published package: its metadata, its LICENSE, and READMEs
// whose links still lead somewhere when read on the registry's page, outside the repository.
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { posix } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const REPO = "https://github.com/catalog-kit/catalog-kit";

interface Manifest {
  name: string;
  private?: boolean;
  workspaces?: string[];
  engines?: { node?: string };
  [key: string]: unknown;
}

const readJson = async (path: string) => JSON.parse(await readFile(`${ROOT}${path}`, "utf8")) as Manifest;
const root = await readJson("package.json");
const workspaces = await Promise.all(
  (root.workspaces ?? []).map(async (dir) => ({ dir, manifest: await readJson(`${dir}/package.json`) })),
);
const published = workspaces.filter(({ manifest }) => manifest.private !== true);
const license = await readFile(`${ROOT}LICENSE`, "utf8");

// What `npm pack` would put in each tarball, by workspace folder; no build is needed for the names
// that matter here, which do not come from dist/.
async function packedFiles(): Promise<Map<string, string[]>> {
  const { stdout } = await promisify(execFile)(
    "npm",
    ["pack", "--dry-run", "--json", "--loglevel=error", ...published.flatMap(({ dir }) => ["-w", dir])],
    { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 },
  );
  const packs = JSON.parse(stdout) as { name: string; files: { path: string }[] }[];
  return new Map(
    packs.map((pack) => [
      published.find(({ manifest }) => manifest.name === pack.name)?.dir ?? pack.name,
      pack.files.map((file) => file.path),
    ]),
  );
}

// Every link target of a Markdown text: inline links and images, reference definitions and HTML
// attributes; code is left out, where brackets and parentheses are not links.
function linkTargets(markdown: string): string[] {
  const prose = markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, "").replace(/`[^`\n]*`/g, "``");
  return [
    ...[...prose.matchAll(/\]\(\s*<?([^)\s>]+)/g)],
    ...[...prose.matchAll(/^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/gm)],
    ...[...prose.matchAll(/\b(?:href|src)\s*=\s*["']([^"']+)["']/g)],
  ].map(([, target]) => target as string);
}

// Where a relative link lands, from the package's folder; undefined for a link with a scheme or
// an anchor on the same page.
function landing(dir: string, file: string, target: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:|^#|^\/\//i.test(target)) return undefined;
  const path = target.replace(/[?#].*$/, "");
  return path.startsWith("/") ? path.slice(1) : posix.join(dir, posix.dirname(file), path);
}

describe.each(published)("$manifest.name", ({ dir, manifest }) => {
  it("names its repository, folder, home page, issue tracker, keywords, license and Node versions", () => {
    expect(manifest).toMatchObject({
      repository: { type: "git", url: `git+${REPO}.git`, directory: dir },
      homepage: `${REPO}/tree/main/${dir}#readme`,
      bugs: { url: `${REPO}/issues` },
      license: "MIT",
      engines: { node: root.engines?.node },
    });
    expect(manifest.keywords).toEqual(expect.arrayContaining([expect.stringMatching(/^[a-z0-9-]+$/)]));
  });

  it("ships the repository's LICENSE", async () => {
    expect(await readFile(`${ROOT}${dir}/LICENSE`, "utf8")).toBe(license);
  });
});

it("the LICENSE is MIT's, held by the catalog-kit contributors", () => {
  expect(license).toMatch(/^MIT License\n\nCopyright \(c\) \d{4} catalog-kit contributors\n/);
  expect(root.license).toBe("MIT");
});

it("the CHANGELOG has an entry for the version the packages carry", async () => {
  const changelog = await readFile(`${ROOT}CHANGELOG.md`, "utf8");
  for (const { manifest } of published) expect(changelog).toContain(`\n## [${manifest.version}]`);
});

it("the tarballs hold LICENSE and README.md, and their Markdown links leave no package", async () => {
  const packed = await packedFiles();
  expect([...packed.keys()].sort()).toEqual(published.map(({ dir }) => dir).sort());
  const escaping: string[] = [];
  const missing: string[] = [];
  for (const [dir, files] of packed) {
    expect(files).toEqual(expect.arrayContaining(["LICENSE", "README.md", "package.json"]));
    for (const file of files.filter((name) => name.endsWith(".md"))) {
      for (const target of linkTargets(await readFile(`${ROOT}${dir}/${file}`, "utf8"))) {
        const lands = landing(dir, file, target);
        if (lands !== undefined && !`${lands}/`.startsWith(`${dir}/`)) escaping.push(`${dir}/${file}: ${target}`);
        const inRepo = new RegExp(`^${REPO}/(?:tree|blob)/main/([^?#]*)`).exec(target)?.[1];
        const path = lands ?? inRepo;
        if (path !== undefined && !existsSync(`${ROOT}${path}`)) missing.push(`${dir}/${file}: ${target}`);
      }
    }
  }
  expect(escaping).toEqual([]);
  expect(missing).toEqual([]);
}, 60_000);

it("finds links of every kind, and none in code", () => {
  const text = [
    "See [a](../a.md) and ![b](<img/b.png> 'title') and [c](https://x.example/c#d).",
    "[ref]: ../../ref.md",
    '<a href="../html.md">x</a> <img src="pic.png">',
    "`[not](../code)`",
    "```ts",
    "call[0](../fenced);",
    "```",
  ].join("\n");
  expect(linkTargets(text)).toEqual([
    "../a.md",
    "img/b.png",
    "https://x.example/c#d",
    "../../ref.md",
    "../html.md",
    "pic.png",
  ]);
});
