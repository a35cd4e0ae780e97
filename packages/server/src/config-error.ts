// How a configuration's problems are told: one line per problem, at its key path from the top of
// the file, with one wording for an unknown or a missing key whichever schema found it.

/** A configuration that cannot be used; `issues` name each offending key path. */
export class ConfigError extends Error {
  override name = "ConfigError";
  readonly issues: readonly string[];

  constructor(source: string, issues: readonly string[]) {
    super(`Invalid configuration in ${source}:\n${issues.map((issue) => `  - ${issue}`).join("\n")}`);
    this.issues = issues;
  }
}

/** One issue as the server prints it: `storage.waitForReplicas.replicas: Must be at least 1`. */
export function issueLine(path: readonly PropertyKey[], message: string): string {
  let text = "";
  for (const key of path) {
    if (typeof key === "number") text += `[${key}]`;
    else text += text === "" ? String(key) : `.${String(key)}`;
  }
  return `${text === "" ? "(top level)" : text}: ${message}`;
}

/** The fields of a valibot issue that tell an unknown or a missing key (also on its Standard Schema issues). */
export interface ValibotIssueFields {
  /** The schema's message. */
  readonly message: string;
  /** The kind of schema that found it: `strict_object` for a key of an object. */
  readonly type?: unknown;
  /** What was expected: `never` where no key was. */
  readonly expected?: unknown;
  /** What was found: nothing, for a missing key. */
  readonly input?: unknown;
}

/**
 * A valibot issue's message, except that an unknown key and a missing key read "Unknown key" and
 * "Required key is missing": valibot words both by the key it expected, which reads as noise in a file.
 */
export function valibotMessage(issue: ValibotIssueFields): string {
  if (issue.expected === "never") return "Unknown key";
  const objectIssue = issue.type === "strict_object" || issue.type === "loose_object" || issue.type === "object";
  return objectIssue && issue.input === undefined ? "Required key is missing" : issue.message;
}
