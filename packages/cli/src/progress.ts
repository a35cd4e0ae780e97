// Progress of an upload: a bar with bytes, rate and ETA on a terminal (cli-progress), plain
// periodic lines otherwise (a log, a CI job).
import { Presets, SingleBar } from "cli-progress";
import { formatBytes } from "./options.ts";

/** A progress display of `total` bytes. */
export interface Progress {
  advance(bytes: number): void;
  stop(): void;
}

// A line every this many milliseconds when the output is not a terminal.
const LINE_EVERY_MS = 2_000;

/** Shows progress on `out`: a bar when it is a terminal, else a line every two seconds. */
export function createProgress(total: number, out: NodeJS.WriteStream, lineEveryMs = LINE_EVERY_MS): Progress {
  const started = performance.now();
  let done = 0;
  const rate = () => formatBytes(done / Math.max((performance.now() - started) / 1_000, 0.001));
  if (out.isTTY) {
    const bar = new SingleBar(
      {
        stream: out,
        format: "{bar} {percentage}% | {sent} of {size} | {rate}/s | ETA {eta_formatted}",
        hideCursor: true,
      },
      Presets.shades_classic,
    );
    bar.start(total, 0, { sent: formatBytes(0), size: formatBytes(total), rate: formatBytes(0) });
    return {
      advance(bytes) {
        done += bytes;
        bar.update(done, { sent: formatBytes(done), rate: rate() });
      },
      stop: () => bar.stop(),
    };
  }
  const line = () => {
    const seconds = (performance.now() - started) / 1_000;
    const eta = done === 0 ? "?" : `${Math.round(((total - done) * seconds) / done)} s`;
    const percent = total === 0 ? 100 : Math.floor((100 * done) / total);
    out.write(`${formatBytes(done)} of ${formatBytes(total)} (${percent}%), ${rate()}/s, ETA ${eta}\n`);
  };
  const timer = setInterval(line, lineEveryMs);
  return {
    advance(bytes) {
      done += bytes;
    },
    stop() {
      clearInterval(timer);
      line();
    },
  };
}
