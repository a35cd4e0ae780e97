// The NDJSON body with one invalid product on its very last line: refused whole, with that line
// named, and nothing of it stored.
import type { Product } from "@catalog-kit/catalog-core";
import { type Answer, SEED } from "../body.ts";
import { Connection, problemCode } from "../client.ts";
import { generateProducts } from "../data.ts";
import { emit, progress } from "../report.ts";
import { SERVER, type Storage, startRig } from "../rig.ts";
import { streamCase } from "./cases.ts";
import { describe, LABEL, nameOf, sizeLabel } from "./rows.ts";
import { API, configOf, fixed, TOKEN } from "./setup.ts";

/** The NDJSON with a bad last line: refused with 400 naming that line, the site unchanged (on Redis, no key left). */
export async function badRowCase(storage: Storage): Promise<void> {
  const rigged = await startRig(storage, "bad-row", configOf);
  try {
    progress(`${storage}: streamed ${LABEL["bad-row"]}`);
    const { measured, produced, site } = await streamCase(rigged, "ndjson", { badLast: true });
    const answer = measured.answer as Answer;
    const problem = JSON.parse(answer.body) as {
      code?: string;
      errorCount?: number;
      errors?: { line?: number; pointer?: string; message?: string }[];
    };
    const first = problem.errors?.[0];
    const lookup = await new Connection(rigged.server.url, TOKEN).send(
      "GET",
      `${API}/${(generateProducts(1, SEED, 0)[0] as Product).id}?siteId=${site.siteId}&siteType=${site.siteType}`,
    );
    const checks = [
      answer.status === 400 && problem.code === "VALIDATION_FAILED",
      problem.errorCount === 1 && first?.line === produced.lastLine && first.pointer === "/price",
      lookup.status === 400 && problemCode(lookup.body) === "PRODUCT_NOT_FOUND",
      measured.redis === undefined || measured.redis.keys === measured.redis.keysBefore,
    ];
    const ok = checks.every(Boolean);
    emit({
      name: nameOf(storage, "bad-row"),
      scenario: `streamed ${LABEL["bad-row"]} over HTTP, ${storage}, ${sizeLabel(measured)} + 1 bad line, ${SERVER}: refused whole`,
      figure: (produced.products + 1) / measured.seconds,
      unit: "products/s",
      note:
        `${ok ? "as expected" : "**NOT as expected**"}: answer ${answer.status} ${problem.code} after ${fixed(measured.seconds, 1)} s` +
        ` (${fixed(answer.afterLastByte, 2)} s after the last byte), ${problem.errorCount} error(s), first at line ${first?.line}` +
        ` ${first?.pointer} (${first?.message}), the bad line being ${produced.lastLine};` +
        ` then GET of the first product: ${lookup.status} ${problemCode(lookup.body)}` +
        (measured.redis === undefined
          ? ""
          : `; Redis keys before ${measured.redis.keysBefore}, afterwards ${measured.redis.keys}`) +
        `; ${describe(measured)}`,
    });
    if (!ok) process.exitCode = 1;
  } finally {
    await rigged.stop();
  }
}
