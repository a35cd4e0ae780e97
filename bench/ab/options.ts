// The A/B runner's command line: `--ab REF [--only SCENARIO[:FILTER],...] [--rounds N] [--quick] [--dry-run]`.
import { parseArgs } from "node:util";
import { SCENARIOS, type Scenario } from "../scenario-list.ts";

/** One scenario to compare, with the arguments that narrow it to the cases asked for. */
export interface Pick {
  readonly scenario: Scenario;
  /** As given after the colon, for the report; undefined when the whole scenario runs. */
  readonly filter: string | undefined;
  /** `--size N` for each number of the filter, `--only WORD` for each word: the scenario's own options. */
  readonly args: readonly string[];
}

export interface AbOptions {
  readonly ref: string;
  readonly picks: readonly Pick[];
  readonly rounds: number;
  readonly quick: boolean;
  readonly dryRun: boolean;
}

export const USAGE = `npm run bench -- --ab REF [--only SCENARIO[:FILTER],...] [--rounds N] [--quick] [--dry-run]
  SCENARIO: ${SCENARIOS.map((s) => s.name).join(", ")} (all of them when --only is not given)
  FILTER:   words and numbers joined by "+"; a word is passed to the scenario as --only WORD, a number
            as --size N (each scenario's own meaning: see the header of scenarios/NAME.ts), e.g.
            import:100000  http:get+bulk  stream:redis+ndjson  stream:postgres  sync:replace`;

function pickOf(text: string): Pick {
  const [name = "", filter] = text.split(":", 2);
  const scenario = SCENARIOS.find((s) => s.name === name);
  if (scenario === undefined) throw new Error(`no scenario "${name}"\n${USAGE}`);
  const tokens = filter === undefined || filter === "" ? [] : filter.split("+");
  const args = tokens.flatMap((token) => {
    if (/^\d+$/.test(token)) return ["--size", token];
    if (/^[a-z][a-z0-9-]*$/.test(token)) return ["--only", token];
    throw new Error(`"${token}" in "${text}" is neither a word nor a number\n${USAGE}`);
  });
  return { scenario, filter: tokens.length === 0 ? undefined : tokens.join("+"), args };
}

/** Reads the options from `argv`; throws with the usage on anything it does not know. */
export function abOptions(argv: readonly string[]): AbOptions {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      ab: { type: "string" },
      only: { type: "string", multiple: true },
      rounds: { type: "string" },
      quick: { type: "boolean", default: false },
      "dry-run": { type: "boolean", default: false },
    },
    strict: true,
    allowPositionals: false,
  });
  if (values.ab === undefined || values.ab === "") throw new Error(`--ab needs a git ref\n${USAGE}`);
  const rounds = values.rounds === undefined ? 2 : Number(values.rounds);
  if (!Number.isInteger(rounds) || rounds < 1) throw new Error(`--rounds must be a whole number >= 1\n${USAGE}`);
  const listed = (values.only ?? []).flatMap((item) => item.split(",")).filter((item) => item !== "");
  const picks = listed.length === 0 ? SCENARIOS.map((scenario) => pickOf(scenario.name)) : listed.map(pickOf);
  return { ref: values.ab, picks, rounds, quick: values.quick === true, dryRun: values["dry-run"] === true };
}
