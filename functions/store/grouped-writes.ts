/**
 * Group commit for writes whose order between callers does not matter: what callers add while a
 * write is under way waits and goes out together in the next one (at most `limit` a write), so
 * under load N callers cost one store call, and alone a caller waits only for its own write.
 * Each caller's promise settles with the write that carried its value.
 */
export class GroupedWrites<T> {
  private pending: { value: T; resolve: () => void; reject: (error: unknown) => void }[] = [];
  private writing = false;

  constructor(
    private readonly write: (values: T[]) => Promise<void>,
    private readonly limit: number,
  ) {}

  add(value: T): Promise<void> {
    const written = new Promise<void>((resolve, reject) => this.pending.push({ value, resolve, reject }));
    if (!this.writing) {
      this.writing = true;
      // The rest of this turn's callers (other lanes finishing now) join the first write.
      setImmediate(() => void this.drain());
    }
    return written;
  }

  private async drain(): Promise<void> {
    while (this.pending.length > 0) {
      const group = this.pending.splice(0, this.limit);
      try {
        await this.write(group.map((g) => g.value));
        for (const g of group) g.resolve();
      } catch (error) {
        for (const g of group) g.reject(error);
      }
    }
    this.writing = false;
  }
}
