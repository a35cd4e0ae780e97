// An application that uses the catalog in-process: no HTTP, memory storage.
// Run it with: npm run embed-catalog -w examples
import { createMemoryStore } from "@catalog-kit/adapter-memory";
import { createCatalog, isCatalogError, toProductView } from "@catalog-kit/catalog-core";

const shop = { siteId: "shop-1", siteType: "shopify" };
const catalog = createCatalog({ store: createMemoryStore(), sites: [shop] });

// 1. A JSON import: the products of the spec's Product Object.
const imported = await catalog.importProducts(shop, [
  {
    id: "tee-1",
    sku: "TEE-BLUE-M",
    title: "T-shirt, blue",
    price: 19.99,
    available: true,
    images: ["https://cdn.example.com/tee-1-front.jpg", "https://cdn.example.com/tee-1-back.jpg"],
    featured_image: "https://cdn.example.com/tee-1-front.jpg",
    url: "https://shop.example.com/products/tee-1",
  },
  {
    id: "mug-1",
    sku: "MUG-1",
    title: "Mug",
    available: false,
    featured_image: "https://cdn.example.com/mug-1.jpg",
    url: "https://shop.example.com/products/mug-1",
  },
]);
console.log("JSON import:", JSON.stringify(imported));

// 2. A CSV import: a header row, then one product per row. mug-1 changes, cap-1 is new.
const csv = [
  "id,sku,title,description,price,available,images,featured_image,url",
  'mug-1,MUG-1,Mug,"Holds 350 ml, dishwasher safe",8.5,true,https://cdn.example.com/mug-1.jpg,https://cdn.example.com/mug-1.jpg,https://shop.example.com/products/mug-1',
  'cap-1,CAP-1,"Cap ""classic""",,12,true,"[""https://cdn.example.com/cap-1.jpg""]",https://cdn.example.com/cap-1.jpg,https://shop.example.com/products/cap-1',
].join("\n");
console.log("CSV import:", JSON.stringify(await catalog.importCsv(shop, csv)));

// 3. Lookups by id or by sku; retrieval answers the five public fields.
console.log("Get by sku:", JSON.stringify(toProductView(await catalog.getProduct(shop, "CAP-1"))));
console.log("Get by id:", JSON.stringify(toProductView(await catalog.getProduct(shop, "tee-1", { by: "id" }))));

// 4. A delete frees the sku.
const deleted = await catalog.deleteProduct(shop, "TEE-BLUE-M");
console.log("Deleted:", deleted.id);

// 5. Invalid input: every problem is listed, nothing is written.
try {
  await catalog.importProducts(shop, [{ id: "bad-1", sku: "", title: "No URL", available: "yes" }]);
} catch (error) {
  if (!isCatalogError(error)) throw error;
  console.log("Rejected:", error.code);
  for (const problem of error.problems) console.log(`  ${problem.pointer}: ${problem.message}`);
}

await catalog.close();
