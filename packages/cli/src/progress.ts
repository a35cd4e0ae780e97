// Progress of an upload: a bar with bytes, rate and ETA on a terminal (cli-progress), plain
// periodic lines otherwise (a log, a CI job), each one only when something moved.
import { Presets, SingleBar } from "cli-progress";
import { formatBytes } from "./human-numbers.ts";
import type { Output } from "./io.ts";

/** A progress display of an upload. */
export interface Progress {
  advance(bytes: number): void;
  stop(): void;
}

// A line every this many milliseconds when the output is not a terminal.
const LINE_EVERY_MS = 2_000;

/**
 * Shows progress of `total` bytes (undefined: not known beforehand, as for standard input) on
 * `out`: a bar when it is a terminal and the total is known, else a line every `lineEveryMs`.
 */
export function createProgress(total: number | undefined, out: Output, lineEveryMs = LINE_EVERY_MS): Progress {
  const started = performance.now();
  let done = 0;
  const rate = () => formatBytes(done / Math.max((performance.now() - started) / 1_000, 0.001));
  if (out.isTTY && total !== undefined) {
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
  // A log with the same line over and over while the server works on the upload says nothing new.
  let shown: number | undefined;
  const line = () => {
    if (done === shown) return;
    shown = done;
    if (total === undefined) {
      out.write(`${formatBytes(done)} sent, ${rate()}/s\n`);
      return;
    }
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
