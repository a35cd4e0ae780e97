// The profiles the catalog knows by name.
import type { ImportProfile } from "./profile.ts";

/** The platforms' profiles every catalog knows, by name. */
export const BUILTIN_PROFILES: readonly ImportProfile[] = [];
