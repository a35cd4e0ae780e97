// The profiles the catalog knows by name.
import { google } from "./google.ts";
import { meta } from "./meta.ts";
import type { ImportProfile } from "./profile.ts";
import { shopify } from "./shopify.ts";
import { woocommerce } from "./woocommerce.ts";

/** The platforms' profiles every catalog knows, by name; detection asks them in this order. */
export const BUILTIN_PROFILES: readonly ImportProfile[] = [shopify, woocommerce, meta, google];
