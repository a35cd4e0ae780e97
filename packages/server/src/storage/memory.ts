// The bundled `"adapter": "memory"`: the catalog in this process, gone when it stops.
import { createMemoryStore } from "@catalog-kit/adapter-memory";
import type { CatalogStore } from "@catalog-kit/catalog-core";
import * as v from "valibot";

/** The options of a memory storage: none. */
export const schema = v.strictObject({});

/** Opens an empty memory store. */
export function create(): CatalogStore {
  return createMemoryStore();
}
