/** A request described by a printed curl command line. */
export interface CurlRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: Record<string, string>;
  readonly body: string | Uint8Array | undefined;
}

/** Splits a POSIX shell command line into words (single and double quotes, backslashes). */
export function shellWords(line: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i] as string;
    if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end === -1) throw new Error(`Unterminated ' in: ${line}`);
      word = (word ?? "") + line.slice(i + 1, end);
      i = end;
    } else if (c === '"') {
      let text = "";
      for (i++; i < line.length && line[i] !== '"'; i++) text += line[i] === "\\" ? line[++i] : line[i];
      if (i >= line.length) throw new Error(`Unterminated " in: ${line}`);
      word = (word ?? "") + text;
    } else if (c === "\\") {
      word = (word ?? "") + (line[++i] ?? "");
    } else if (c === " " || c === "\t" || c === "\n") {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else word = (word ?? "") + c;
  }
  if (word !== undefined) words.push(word);
  return words;
}

/**
 * Interprets the curl options the project's documentation uses: -X, -H, -d/--data, -s/-S/-i
 * flags; `--data-binary @name` sends the file `name` of `files` (`@-`: the standard input, `-`).
 */
export function parseCurl(line: string, files: Readonly<Record<string, string | Uint8Array>> = {}): CurlRequest {
  const words = shellWords(line.replace(/\\\n/g, " "));
  if (words[0] !== "curl") throw new Error(`Not a curl command: ${line}`);
  let method: string | undefined;
  let url: string | undefined;
  let body: string | Uint8Array | undefined;
  const headers: Record<string, string> = {};
  for (let i = 1; i < words.length; i++) {
    const word = words[i] as string;
    if (word === "-X" || word === "--request") method = words[++i];
    else if (word === "-H" || word === "--header") {
      const header = words[++i] as string;
      const colon = header.indexOf(":");
      headers[header.slice(0, colon).trim().toLowerCase()] = header.slice(colon + 1).trim();
    } else if (word === "-d" || word === "--data" || word === "--data-raw") body = words[++i];
    else if (word === "--data-binary") {
      const data = words[++i] as string;
      const file = data.startsWith("@") ? files[data.slice(1)] : data;
      if (file === undefined) throw new Error(`No file ${data.slice(1)} shown before: ${line}`);
      body = file;
    } else if (/^-[sSif]+$/.test(word) || word === "--fail-with-body") continue;
    else if (word.startsWith("-")) throw new Error(`Unsupported curl option ${word}`);
    else url = word;
  }
  if (url === undefined) throw new Error(`No URL in: ${line}`);
  return { method: method ?? (body === undefined ? "GET" : "POST"), url, headers, body };
}

/** Performs a parsed curl request with fetch. */
export function performCurl(request: CurlRequest): Promise<Response> {
  const headers = { ...request.headers };
  // curl -d sends form encoding unless the command sets a type.
  if (request.body !== undefined) headers["content-type"] ??= "application/x-www-form-urlencoded";
  return fetch(request.url, {
    method: request.method,
    headers,
    ...(request.body === undefined ? {} : { body: request.body }),
  });
}
