// A profile of your own: an ERP's semicolon-separated price list, one row per variant, rows of one
// article together, read into the catalog's products by the same engine as every other import.
// Run: npm run custom-profile -w examples
import { createMemoryStore } from "@catalog-kit/adapter-memory";
import {
  cell,
  createCatalog,
  groupProduct,
  type ImportProfile,
  isCatalogError,
  readPrice,
  shopPage,
} from "@catalog-kit/catalog-core";

// The ERP's columns: the kept ones are read, the others are listed in the answer's ignoredColumns.
const KEPT = new Set(["Article", "Variant", "Name", "Price", "Stock", "Picture"]);
const IGNORED = new Set(["Warehouse", "Supplier"]);

const erp: ImportProfile = {
  name: "erp",
  formats: ["csv"],
  requires: ["shopUrl"],
  column: (name) => (KEPT.has(name) ? "kept" : IGNORED.has(name) ? "ignored" : undefined),
  detect: (header) => header.includes("Article") && header.includes("Variant"),
  // Where a product field's problems are shown: the column it is read from.
  columnOf: (field) =>
    ({ id: "Article", sku: "Variant", price: "Price", available: "Stock", title: "Name" })[field as string] ??
    "Picture",
  // Rows of one article, one after the other, are one product.
  group: (row) => ({ key: cell(row, "Article") }),
  products: (rows, context) => {
    const first = rows[0];
    if (first === undefined) return [];
    const record = groupProduct({
      id: cell(first, "Article"),
      title: cell(first, "Name"),
      url: shopPage(context.parameters.shopUrl ?? "", `articles/${cell(first, "Article")}`),
      images: rows.map((row) => cell(row, "Picture")),
      variants: rows.map((row) => {
        const price = readPrice(row, "Price", context);
        const variant = { sku: cell(row, "Variant"), available: Number(cell(row, "Stock")) > 0 };
        return price === undefined ? variant : { ...variant, price };
      }),
    });
    return [{ position: first.position, record }];
  },
};

const shop = { siteId: "shop-1", siteType: "erp" };
const catalog = createCatalog({ store: createMemoryStore(), sites: [shop], profiles: [erp] });

const file = `Article;Variant;Name;Price;Stock;Picture;Warehouse
TEE;TEE-S;Organic tee;19,90;4;https://img.example/tee-s.png;North
TEE;TEE-M;Organic tee;21,90;0;https://img.example/tee-m.png;North
CAP;CAP-1;Cap;9,50;12;https://img.example/cap.png;South
`;
const options = { profile: "erp", delimiter: ";", decimal: ",", shopUrl: "https://shop.example" } as const;
console.log(`Import: ${JSON.stringify(await catalog.importStream(shop, [file], { format: "csv", ...options }))}`);
console.log(`Tee: ${JSON.stringify(await catalog.getProduct(shop, "TEE"))}`);

// The same file read with "." as the decimal separator: refused whole, at its row and column.
try {
  await catalog.importStream(shop, [file], { format: "csv", ...options, decimal: "." });
} catch (error) {
  if (!isCatalogError(error)) throw error;
  for (const problem of error.problems)
    console.log(`Rejected: row ${problem.row}, ${problem.column}: ${problem.message}`);
}
