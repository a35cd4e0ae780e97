// The memory store against the storage contract.
import { createMemoryStore } from "@catalog-kit/adapter-memory";
import { testCatalogStore } from "@catalog-kit/catalog-core/testing";

testCatalogStore(() => createMemoryStore(), {
  breakable: { notApplicable: "the memory store keeps its products in this process: there is no backend to lose" },
  closing: {
    notApplicable: "the memory store opens nothing, so close has nothing to let go of and it keeps answering",
  },
});
