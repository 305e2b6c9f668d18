import cliProgress from "cli-progress";

export interface ProgressCounts {
  rows: number;
  events: number;
  failed: number;
  /** Bytes of the file read so far, and its size: the fraction done, for time left. */
  bytes: number;
  size: number;
  /** Events handed to the sender so far (read, not yet all answered); 0 in a dry run. */
  sent: number;
}

/**
 * The share done: of the file read, the part whose events the server has answered (reading runs
 * ahead of the answers by the batches in flight and filling).
 */
function done(c: ProgressCounts): number {
  if (c.size <= 0) return 0;
  const read = c.bytes / c.size;
  return c.sent > 0 ? read * Math.min(1, c.events / c.sent) : read;
}

export interface Progress {
  update(counts: ProgressCounts): void;
  stop(): void;
}

/** Time left at the pace so far; unknown ("?") before anything is answered. */
function eta(elapsedS: number, fraction: number): string {
  if (fraction <= 0) return "?";
  if (fraction >= 1) return "0s";
  const left = Math.round((elapsedS / fraction) * (1 - fraction));
  return left >= 60 ? `${Math.floor(left / 60)}m${String(left % 60).padStart(2, "0")}s` : `${left}s`;
}

/**
 * A bar on a terminal (rows, events/s, time left, from the share of the file read), plain
 * lines every few seconds otherwise (a CI log or a file), on stderr either way.
 */
export function startProgress(label: string, tty: boolean, started = Date.now()): Progress {
  if (tty) {
    const bar = new cliProgress.SingleBar(
      {
        format: `${label} {bar} {percentage}% | {rows} rows read | {stored} events stored | {rate} events/s | {failed} failed | {left} left`,
        hideCursor: true,
        stream: process.stderr,
        fps: 5,
      },
      cliProgress.Presets.shades_classic,
    );
    bar.start(1000, 0, { rows: 0, stored: 0, rate: 0, failed: 0, left: "?" });
    return {
      update(c) {
        const s = (Date.now() - started) / 1000;
        const fraction = done(c);
        bar.update(Math.round(fraction * 1000), {
          rows: c.rows,
          stored: c.events,
          rate: s > 0 ? Math.round(c.events / s) : 0,
          failed: c.failed,
          left: eta(s, fraction),
        });
      },
      stop: () => bar.stop(),
    };
  }
  let last = started;
  return {
    update(c) {
      const now = Date.now();
      if (now - last < 2000) return;
      last = now;
      const s = (now - started) / 1000;
      const fraction = done(c);
      process.stderr.write(
        `${label}: ${c.rows} rows read, ${c.events} events stored, ${s > 0 ? Math.round(c.events / s) : 0} events/s, ` +
          `${c.failed} failed, ${Math.round(fraction * 100)}% of the file, ${eta(s, fraction)} left\n`,
      );
    },
    stop() {},
  };
}
