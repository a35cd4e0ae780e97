// What the tests of the standalone server share: the server as a child process, as `npm start`
// runs it, and the `curl` lines of a document, parsed and performed with their expected answers.
export { type CliProcess, startCli, stopCli } from "./cli-process.ts";
export { parseCurl, performCurl } from "./curl.ts";
export { docSteps, expectedFor } from "./doc-steps.ts";
