// The fields of Meta's catalog data feed (Commerce Manager, Advantage+ catalog ads), and those only
// Meta publishes, which tell its feeds from Google's.
import { GOOGLE_ATTRIBUTES } from "./google-attributes.ts";

/** Every field of Meta's catalog feed reference; flattened columns (`video[0].url`) name their field first. */
export const META_ATTRIBUTES: ReadonlySet<string> = new Set([
  // Required
  "id",
  "title",
  "description",
  "availability",
  "condition",
  "price",
  "link",
  "image_link",
  "brand",
  // Commerce
  "quantity_to_sell_on_facebook",
  "inventory",
  "fb_product_category",
  "google_product_category",
  "product_type",
  "size",
  "color",
  "gender",
  "age_group",
  "material",
  "pattern",
  "style",
  "sale_price",
  "sale_price_effective_date",
  "item_group_id",
  "status",
  "visibility",
  "additional_image_link",
  "image",
  "video",
  "rich_text_description",
  "product_tags",
  "additional_variant_attribute",
  "gtin",
  "mpn",
  "shipping",
  "shipping_weight",
  "commerce_tax_category",
  "expiration_date",
  "availability_date",
  "unit_price",
  "return_policy_info",
  "marked_for_product_launch",
  "disabled_capabilities",
  "internal_label",
  "applink",
  "origin_country",
  "importer_name",
  "importer_address",
  "manufacturer_info",
  "wa_compliance_category",
  "custom_label_0",
  "custom_label_1",
  "custom_label_2",
  "custom_label_3",
  "custom_label_4",
  "custom_number_0",
  "custom_number_1",
  "custom_number_2",
  "custom_number_3",
  "custom_number_4",
]);

/** The fields Meta publishes and Google does not. */
export const META_ONLY: ReadonlySet<string> = new Set(
  [...META_ATTRIBUTES].filter((name) => !GOOGLE_ATTRIBUTES.has(name)),
);

/**
 * Whether a header (names in lower case) is Meta's: it names a field only Meta publishes, or
 * writes one in Meta's flattened JSON-path spelling (`image[0].url`, `applink.ios_url`).
 */
export function isMetaHeader(names: ReadonlySet<string>): boolean {
  for (const name of names) if (META_ONLY.has(name) || /[[.]/.test(name)) return true;
  return false;
}
