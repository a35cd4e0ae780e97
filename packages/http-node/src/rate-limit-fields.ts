// The `RateLimit-Policy` and `RateLimit` fields of an answer, written past Node's checks of each
// field. Node tests every name and value it is given against the header grammar (one regular
// expression over every character), lower-cases each name and joins the lines one by one: for
// these two fields, on every answer, that was most of what the limits cost a GET. Their text is
// ours alone (fixed names, a policy of integers and fixed words, integers made per request) and
// is checked once, where the policy is made, so a 200 appends them to the head Node wrote as they
// are. Nothing a client sends goes this way; any other answer writes them as ordinary headers.
import { IncomingMessage, ServerResponse } from "node:http";
import { Socket } from "node:net";

// What Node itself refuses in a field value, and more: only visible ASCII and the space here.
const PLAIN = /^[\x20-\x7e]*$/;

/**
 * The rate-limit headers of one answer, as a record (spread and walked like any other headers)
 * and as the header lines they make (`linesOf`); only the limiter makes them.
 */
export class RateLimitFields {
  [name: string]: string;
  // `ratelimit-policy: ...\r\n`, checked once by `policyLine`.
  readonly #policyLine: string;

  /** Fields of `policy`, whose line `policyLine` made, and of a `RateLimit` value made of integers and fixed words. */
  constructor(policy: string, line: string, ratelimit: string) {
    this.#policyLine = line;
    this["ratelimit-policy"] = policy;
    this.ratelimit = ratelimit;
  }

  /** The two header lines, each ending in CRLF. */
  static linesOf(fields: RateLimitFields): string {
    return `${fields.#policyLine}ratelimit: ${fields.ratelimit}\r\n`;
  }
}

/** The `RateLimit-Policy` line of `policy`, or undefined when it has a character outside visible ASCII and the space. */
export function policyLine(policy: string): string | undefined {
  return PLAIN.test(policy) ? `ratelimit-policy: ${policy}\r\n` : undefined;
}

// Whether this Node keeps the head writeHead made as a string ending in the blank line, ready to
// be written with the first body chunk: asked once, and when it does not, the fields go through
// Node's own checks like any other header.
function headIsAString(): boolean {
  try {
    const res = new ServerResponse(new IncomingMessage(new Socket()));
    res.writeHead(200, ["x-probe", "1"]);
    const head: unknown = (res as unknown as { _header: unknown })._header;
    return typeof head === "string" && head.includes("\r\nx-probe: 1\r\n") && head.endsWith("\r\n\r\n");
  } catch {
    return false;
  }
}

/** Whether `appendLines` can add lines to the head writeHead made. */
export const CAN_APPEND = headIsAString();

/** Adds `lines` (each ending in CRLF) at the end of the head `res.writeHead` just made, before its blank line. */
export function appendLines(res: ServerResponse, lines: string): void {
  const response = res as unknown as { _header: string };
  response._header = `${response._header.slice(0, -2)}${lines}\r\n`;
}
