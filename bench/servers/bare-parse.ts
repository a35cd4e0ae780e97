// Baseline: bare node:http that only reads the request body and JSON.parses it (a ceiling for POST).
import { createServer } from "node:http";
import { announce } from "./shared.ts";

const answer = JSON.stringify({ message: "parsed" });
let sink: unknown;
const server = createServer({ keepAlive: true }, (req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (chunk: Buffer) => chunks.push(chunk));
  req.on("end", () => {
    sink = JSON.parse(Buffer.concat(chunks).toString());
    res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(answer) });
    res.end(answer);
  });
});
server.listen(0, "127.0.0.1", () => announce(server));
void sink;
