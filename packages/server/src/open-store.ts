// Opening the configured store through its adapter module, whichever it is: bundled, a package or a file.
import type { CatalogStore } from "@catalog-kit/catalog-core";
import type { StorageContext } from "./storage/contract.ts";
import { checkedBefore, checkStorage, type StorageConfig } from "./storage/load.ts";

/**
 * Opens the store a configuration's `storage` names: its adapter module loaded (a bundled one, a
 * package or a file), its options validated by the module's schema unless `loadConfig` already
 * did, and its `create` called with them.
 *
 * @param storage - `config.storage` of a `ServerConfig`.
 * @param context - what the adapter is given; `configDir` is also where a package or a relative
 *   path named by `adapter` is looked up from. Default: the working directory.
 * @throws ConfigError when the adapter cannot be loaded or its options are not valid.
 */
export async function openStore(
  storage: StorageConfig,
  context: StorageContext = { configDir: process.cwd() },
): Promise<CatalogStore> {
  const { module, options } =
    checkedBefore(storage, context.configDir) ?? (await checkStorage(storage, context, "configuration"));
  return module.create(options as Record<string, unknown>, context);
}
