// The columns of a profile's file, checked as they are met: a CSV or TSV header at once, an XML
// feed's elements item by item. Kept ones are read, the platform's others are listed in the
// answer's `ignoredColumns` (said, never silently dropped), and one nobody knows is a problem.
import type { Place, Problems } from "../parse.ts";
import { clip } from "../text.ts";
import type { ImportProfile } from "./profile.ts";

/** What happens to a column: read into products, listed as ignored, or refused. */
export type ColumnTreatment = "kept" | "ignored" | undefined;

/** The columns of one file, each judged once by its profile. */
export class ColumnCheck {
  /** The platform's columns this import does not keep, in the order met. */
  readonly ignored: string[] = [];
  private readonly seen = new Map<string, ColumnTreatment>();
  private readonly profile: ImportProfile;
  private readonly problems: Problems;
  private readonly ignoreUnknown: boolean;

  constructor(profile: ImportProfile, problems: Problems, ignoreUnknown = false) {
    this.profile = profile;
    this.problems = problems;
    this.ignoreUnknown = ignoreUnknown;
  }

  /** How `name` is treated; an unknown name is a problem at `place` the first time it is met. */
  treat(name: string, place: () => Place): ColumnTreatment {
    const known = this.seen.get(name);
    if (known !== undefined || this.seen.has(name)) return known;
    let treatment = this.profile.column(name);
    if (treatment === undefined && this.ignoreUnknown) treatment = "ignored";
    if (treatment === undefined) {
      const shown = clip(name);
      const at = place();
      const what = at.element === undefined ? "column" : "element";
      this.problems.add({ ...at, message: `Unknown ${what} "${shown}" for the ${this.profile.name} profile` });
    }
    if (treatment === "ignored") this.ignored.push(name);
    this.seen.set(name, treatment);
    return treatment;
  }
}
