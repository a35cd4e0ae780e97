// Baseline: bare node:http answering every request with one fixed product view (a ceiling for GET).
import { createServer } from "node:http";
import { type Product, toProductView } from "@catalog-kit/catalog-core";
import { generateProducts } from "../data.ts";
import { announce } from "./shared.ts";

const body = JSON.stringify(toProductView(generateProducts(1)[0] as Product));
const length = Buffer.byteLength(body);
const server = createServer({ keepAlive: true }, (_req, res) => {
  res.writeHead(200, { "content-type": "application/json", "content-length": length });
  res.end(body);
});
server.listen(0, "127.0.0.1", () => announce(server));
