// The measurement behind the adapter's driver (README, "The driver"): the bulk path of an import
// (chunks of 2,000 products sent with COPY into a temporary table) and single-row lookups, with
// `pg` + `pg-copy-streams` and with postgres.js, on a private server. Run:
//   npx tsx --conditions=@catalog-kit/source packages/adapter-postgres/test/measure-drivers.ts
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { Product } from "@catalog-kit/catalog-core";
import { startPostgres } from "@catalog-kit/test-support";
import pg from "pg";
import { from as copyFrom } from "pg-copy-streams";
import postgres from "postgres";
import { copyRows } from "../src/copy-rows.ts";

const PRODUCTS = 200_000;
const CHUNK = 2_000;
const LOOKUPS = 5_000;
const TABLE = "CREATE TEMP TABLE staging (seq bigint, position bigint, id text, sku text, body text)";

function product(i: number): Product {
  return {
    id: `product-${i}`,
    sku: `SKU-${i}`,
    title: `Blue ceramic mug number ${i}, 350 ml, dishwasher safe`,
    description: "A sturdy mug for every morning. ".repeat(12),
    price: 12.5 + (i % 100),
    available: i % 3 !== 0,
    images: [`https://img.example/${i}/1.jpg`, `https://img.example/${i}/2.jpg`],
    featured_image: `https://img.example/${i}/1.jpg`,
    url: `https://shop.example/products/${i}`,
  };
}

const chunks: Buffer[] = [];
for (let start = 0; start < PRODUCTS; start += CHUNK) {
  const products = Array.from({ length: CHUNK }, (_, i) => product(start + i));
  chunks.push(
    copyRows(
      products,
      products.map((_, i) => start + i),
      start,
    ),
  );
}

async function timed(name: string, body: () => Promise<void>): Promise<void> {
  const cpu = process.cpuUsage();
  const start = performance.now();
  await body();
  const wall = performance.now() - start;
  const used = process.cpuUsage(cpu);
  console.log(
    `${name.padEnd(44)} ${wall.toFixed(0).padStart(6)} ms  client CPU ${((used.user + used.system) / 1000).toFixed(0).padStart(5)} ms`,
  );
}

const server = await startPostgres();
try {
  const client = new pg.Client({ connectionString: server.url });
  await client.connect();
  const sql = postgres(server.url, { max: 1, onnotice: () => {} });
  await client.query("CREATE TABLE lookup (id text PRIMARY KEY, body text)");
  await client.query("INSERT INTO lookup SELECT 'product-' || i, repeat('x', 800) FROM generate_series(0, 99999) i");
  await client.query(TABLE);
  await sql.unsafe(TABLE);
  for (let round = 0; round < 2; round++) {
    await client.query("TRUNCATE staging");
    await timed(`pg + pg-copy-streams: COPY ${PRODUCTS} products`, async () => {
      for (const rows of chunks)
        await pipeline(Readable.from([rows]), client.query(copyFrom("COPY staging FROM STDIN")));
    });
    await sql`TRUNCATE staging`;
    await timed(`postgres.js: COPY ${PRODUCTS} products`, async () => {
      for (const rows of chunks) await pipeline(Readable.from([rows]), await sql`COPY staging FROM STDIN`.writable());
    });
    await sql`TRUNCATE staging`;
    await timed(`postgres.js: the same as one COPY`, async () => {
      await pipeline(Readable.from(chunks), await sql`COPY staging FROM STDIN`.writable());
    });
    await timed(`pg: ${LOOKUPS} lookups, one at a time`, async () => {
      for (let i = 0; i < LOOKUPS; i++) await client.query("SELECT body FROM lookup WHERE id = $1", [`product-${i}`]);
    });
    await timed(`postgres.js: ${LOOKUPS} lookups, one at a time`, async () => {
      for (let i = 0; i < LOOKUPS; i++) await sql`SELECT body FROM lookup WHERE id = ${`product-${i}`}`;
    });
  }
  await client.end();
  await sql.end();
} finally {
  await server.stop();
}
