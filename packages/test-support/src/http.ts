// What the HTTP tests share: the server as a child process, as `npm start` runs it, the `curl`
// lines of a document, parsed and performed with their expected answers, and raw connections.
export { type CliProcess, NPM_START_ARGS, ROOT, startCli, stopCli } from "./cli-process.ts";
export { parseCurl, performCurl } from "./curl.ts";
export { docSteps, expectedFor, withShownImportIds } from "./doc-steps.ts";
export { hasCompleteResponse, openRaw, parseRawResponse, type RawConnection } from "./raw-http.ts";
