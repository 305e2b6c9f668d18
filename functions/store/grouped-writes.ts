/**
 * Group commit for writes whose order between callers does not matter: what callers add while
 * `inFlight` writes are under way waits and goes out together in the next one (at most `limit`
 * a write), so under load N callers cost one store call, and alone a caller waits only for its
 * own write. Each caller's promise settles with the write that carried its value.
 */
export class GroupedWrites<T> {
  private pending: { value: T; resolve: () => void; reject: (error: unknown) => void }[] = [];
  private writing = 0;
  private scheduled = false;

  constructor(
    private readonly write: (values: T[]) => Promise<void>,
    private readonly limit: number,
    private readonly inFlight = 1,
  ) {}

  add(value: T): Promise<void> {
    const written = new Promise<void>((resolve, reject) => this.pending.push({ value, resolve, reject }));
    if (!this.scheduled && this.writing < this.inFlight) {
      this.scheduled = true;
      // The rest of this turn's callers (other lanes finishing now) join the same write.
      setImmediate(() => {
        this.scheduled = false;
        this.next();
      });
    }
    return written;
  }

  private next(): void {
    while (this.writing < this.inFlight && this.pending.length > 0) {
      const group = this.pending.splice(0, this.limit);
      this.writing += 1;
      // A write that throws at once fails its group like one that rejects.
      Promise.resolve()
        .then(() => this.write(group.map((g) => g.value)))
        .then(
          () => {
            for (const g of group) g.resolve();
          },
          (error) => {
            for (const g of group) g.reject(error);
          },
        )
        .finally(() => {
          this.writing -= 1;
          this.next();
        });
    }
  }
}
