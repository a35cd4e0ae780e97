// The header lines the platforms' exports begin with, for the tests of detection and of import.

/** Header lines of each platform's export, as the platform writes them. */
export const HEADERS = {
  shopifyLegacy:
    "Handle,Title,Body (HTML),Vendor,Product Category,Type,Tags,Published,Option1 Name,Option1 Value,Variant SKU,Variant Price,Image Src,Image Position,Status",
  shopifyCurrent:
    "Title,URL handle,Description,Vendor,Product category,Type,Tags,Published on online store,Status,SKU,Option1 name,Option1 value,Price,Product image URL,Image position",
  woocommerce:
    "ID,Type,SKU,Name,Published,Is featured?,Short description,Description,In stock?,Stock,Sale price,Regular price,Categories,Images,Parent",
  google: "id\ttitle\tdescription\tlink\timage_link\tavailability\tprice\tbrand\tgtin",
  meta: "id\ttitle\tdescription\tavailability\tcondition\tprice\tlink\timage_link\tbrand\tquantity_to_sell_on_facebook",
  native: "id,sku,title,available,featured_image,url",
} as const;
