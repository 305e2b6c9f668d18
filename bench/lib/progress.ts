/** A progress bar on stderr; on a pipe (CI, tests) one line per step instead of redraws. */
export class Progress {
  private done = 0;
  private readonly started = performance.now();
  private readonly tty = process.stderr.isTTY === true;

  constructor(
    private readonly total: number,
    private readonly quiet = false,
  ) {}

  step(label: string): void {
    this.done = Math.min(this.total, this.done + 1);
    this.draw(label);
  }

  note(label: string): void {
    this.draw(label);
  }

  finish(): void {
    if (this.tty && !this.quiet) process.stderr.write("\n");
  }

  private draw(label: string): void {
    if (this.quiet) return;
    const width = 28;
    const filled = Math.round((this.done / this.total) * width);
    const bar = `${"█".repeat(filled)}${"░".repeat(width - filled)}`;
    const seconds = ((performance.now() - this.started) / 1000).toFixed(0).padStart(4);
    const line = `${bar} ${String(this.done).padStart(3)}/${this.total} ${seconds}s  ${label}`;
    if (this.tty) process.stderr.write(`\r\x1b[2K${line.slice(0, (process.stderr.columns ?? 120) - 1)}`);
    else process.stderr.write(`${line}\n`);
  }
}
