import { createCatalog } from "@catalog-kit/catalog-core";
import { testCatalogStore } from "@catalog-kit/catalog-core/testing";
import { describe, expect, it } from "vitest";
import { createMapStore } from "../custom-adapter/map-store.ts";

testCatalogStore(() => createMapStore(), {
  breakable: { notApplicable: "the map store keeps its products in this process: there is no backend to lose" },
  closing: { notApplicable: "the map store opens nothing, so close has nothing to let go of and it keeps answering" },
});

describe("the custom adapter behind a catalog", () => {
  it("serves imports and lookups", async () => {
    const site = { siteId: "s", siteType: "t" };
    const catalog = createCatalog({ store: createMapStore(), sites: [site] });
    const product = { id: "p", sku: "P", title: "P", available: true, featured_image: "https://i", url: "https://u" };
    expect(await catalog.importProduct(site, product)).toMatchObject({ created: 1 });
    expect(await catalog.getProduct(site, "P")).toEqual(product);
    await catalog.close();
    await expect(catalog.checkHealth()).rejects.toThrow("closed");
  });
});
