// The workspace's packages as their manifests say: the one list of what is published, read where
// it is declared (`private` in each package.json) rather than written again in each test.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository's root folder. */
export const ROOT = fileURLToPath(new URL("../../..", import.meta.url));

interface Manifest {
  readonly name: string;
  readonly private?: boolean;
  readonly dependencies?: Record<string, string>;
  readonly peerDependencies?: Record<string, string>;
}

/**
 * The folder names under `packages/` of the published (not `private`) packages, each after the
 * packages it depends on, as a build of them in turn needs.
 */
export function publishedPackages(): string[] {
  const manifests = new Map<string, Manifest>();
  for (const folder of readdirSync(join(ROOT, "packages")).sort()) {
    const manifest = JSON.parse(readFileSync(join(ROOT, "packages", folder, "package.json"), "utf8")) as Manifest;
    if (manifest.private !== true) manifests.set(folder, manifest);
  }
  const folderOf = new Map([...manifests].map(([folder, { name }]) => [name, folder]));
  const ordered: string[] = [];
  const visit = (folder: string) => {
    if (ordered.includes(folder)) return;
    const { dependencies = {}, peerDependencies = {} } = manifests.get(folder) as Manifest;
    for (const name of Object.keys({ ...dependencies, ...peerDependencies })) {
      const dependency = folderOf.get(name);
      if (dependency !== undefined) visit(dependency);
    }
    ordered.push(folder);
  };
  for (const folder of manifests.keys()) visit(folder);
  return ordered;
}
