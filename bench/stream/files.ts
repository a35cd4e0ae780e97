// The NDJSON body as a file on disk, sent by the `catalog-kit import` command against `curl -T`
// of the same file, each into a fresh server; both tools' CPU is read from /proc.
import { spawnSync } from "node:child_process";
import { createWriteStream } from "node:fs";
import { join } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { type Answer, bodyOf, type Produced } from "../body.ts";
import { runMeasured } from "../child.ts";
import { emit, progress } from "../report.ts";
import { type Rig, type Storage, startRig } from "../rig.ts";
import { tempDir } from "../standalone.ts";
import { type Measured, measure, rate, requireImported, withHeap } from "./cases.ts";
import { describe, LABEL, nameOf, streamRows } from "./rows.ts";
import { API, budget, configOf, count, fixed, megabytes, TOKEN, takeSite } from "./setup.ts";

/** The NDJSON body as a file on disk, written once (by the same generator) for the tools that send files. */
interface BodyFile {
  readonly path: string;
  readonly produced: Produced;
}

let bodyFile: Promise<BodyFile> | undefined;

function ndjsonFile(): Promise<BodyFile> {
  bodyFile ??= (async () => {
    const dir = await tempDir("catalog-bench-file-");
    const path = join(dir.path, "catalog.ndjson");
    const produced: Produced = { products: 0, bytes: 0, lastLine: 0 };
    await pipeline(Readable.from(bodyOf("ndjson", produced, { maxBytes: budget })), createWriteStream(path));
    return { path, produced };
  })();
  return bodyFile;
}

const haveCurl = spawnSync("curl", ["--version"], { stdio: "ignore" }).status === 0;
const root = new URL("../..", import.meta.url);
/** A line of progress the command prints on a pipe: "512.0 MB of 1.0 GB (50%), 60.1 MB/s, ETA 8 s". */
const PROGRESS_LINE = /\((\d+)%\), .*\/s, ETA /;

/**
 * The file sent by `tool` into a fresh site of the rig's server: the `catalog-kit import` command
 * (its source under tsx, as a checkout runs it; standard error a pipe, so progress comes as lines)
 * or `curl -T` (streamed from the file with its Content-Length, as the command sends it). The
 * client CPU is the tool's own, read from /proc; the progress lines the command printed are kept.
 */
async function fileCase(rigged: Rig, tool: "cli" | "curl", file: BodyFile): Promise<{ m: Measured; lines: string[] }> {
  const site = takeSite();
  const lines: string[] = [];
  let percent = 0;
  let cpu = 0;
  const measured = await measure(
    rigged,
    () => 100,
    () => percent,
    async (): Promise<Answer> => {
      const url = new URL(`${API}/bulk`, rigged.server.url);
      const finished =
        tool === "cli"
          ? await runMeasured(
              process.execPath,
              [
                "--conditions=@catalog-kit/source",
                "--import",
                "tsx",
                "packages/cli/src/main.ts",
                "import",
                file.path,
                "--url",
                rigged.server.url,
                "--site",
                `${site.siteType}/${site.siteId}`,
                // The summary on standard output, for the answer's body below.
                "--json",
              ],
              {
                cwd: root,
                env: { ...process.env, CATALOG_TOKEN: TOKEN },
                onStderrLine: (line) => {
                  const shown = PROGRESS_LINE.exec(line);
                  if (shown === null) return;
                  lines.push(line);
                  percent = Number(shown[1]);
                },
              },
            )
          : await runMeasured("curl", [
              "-sS",
              "-X",
              "POST",
              "-T",
              file.path,
              "-H",
              `x-service-access-token: ${TOKEN}`,
              "-H",
              "content-type: application/x-ndjson",
              "-H",
              "expect:",
              "-w",
              "\n%{http_code}",
              `${url.href}?siteId=${site.siteId}&siteType=${site.siteType}`,
            ]);
      cpu = finished.cpuSeconds;
      const out = finished.stdout.trimEnd();
      const lastLine = out.slice(out.lastIndexOf("\n") + 1);
      const body = tool === "curl" ? out.slice(0, out.lastIndexOf("\n")) : lastLine;
      const status = tool === "curl" ? Number(lastLine) : finished.code === 0 ? 200 : 0;
      return {
        status,
        body: status === 200 ? body : `${finished.stdout}${finished.stderr}`,
        seconds: finished.seconds,
        afterLastByte: Number.NaN,
        wireBytes: file.produced.bytes,
      };
    },
  );
  return { m: { ...measured, products: file.produced.products, bytes: file.produced.bytes, clientCpu: cpu }, lines };
}

/** The NDJSON file by `catalog-kit import` against `curl -T` of the same file, each into a fresh server. */
export async function cliCase(storage: Storage): Promise<void> {
  if (!haveCurl) {
    emit({
      name: nameOf(storage, "cli"),
      scenario: `streamed ${LABEL.cli}, ${storage}`,
      figure: null,
      unit: "",
      note: "not available: curl is not installed",
    });
    return;
  }
  const file = await ndjsonFile();
  const sent: { m: Measured; lines: string[] }[] = [];
  for (const tool of ["curl", "cli"] as const) {
    progress(`${storage}: the NDJSON file (${fixed(megabytes(file.produced.bytes), 0)} MB) sent by ${tool}`);
    const rigged = await startRig(storage, tool, configOf);
    try {
      const done = await fileCase(rigged, tool, file);
      requireImported(done.m, `${storage} ${tool}`);
      if (storage === "memory") done.m = await withHeap(rigged.server, done.m);
      progress(`  ${count(Math.round(rate(done.m)))} products/s, ${describe(done.m)}`);
      sent.push(done);
    } finally {
      await rigged.stop();
    }
  }
  const [curl, cli] = sent as [{ m: Measured }, { m: Measured; lines: string[] }];
  if (cli.lines.length === 0) throw new Error("catalog-kit import printed no progress line");
  const shown = `${cli.lines.length} progress line(s) on its standard error, the first: "${cli.lines[0]}"`;
  for (const row of streamRows(storage, "cli", cli.m, curl.m, {
    label: "curl -T",
    name: "`curl -T` of the same file",
  })) {
    emit(row.unit === "products/s" ? { ...row, note: `${shown}; ${row.note}` } : row);
  }
}
