// The memory store against the storage contract.
import { createMemoryStore } from "@catalog-kit/adapter-memory";
import { testCatalogStore } from "@catalog-kit/catalog-core/testing";

testCatalogStore(() => createMemoryStore());
