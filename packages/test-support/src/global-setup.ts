// vitest's global setup of the workspace (see vitest.config.ts): the run's shared servers,
// started on demand, their endpoint `provide`d to every test file, all stopped at the end.
import type { TestProject } from "vitest/node";
import { serveSharedServers } from "./shared-servers.ts";

declare module "vitest" {
  export interface ProvidedContext {
    /** The loopback URL of the run's shared-server endpoint (see shared-servers.ts). */
    sharedServers: string;
  }
}

/** Serves the run's shared servers for its test files; the returned teardown stops them. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const servers = await serveSharedServers();
  project.provide("sharedServers", servers.url);
  return servers.stop;
}
