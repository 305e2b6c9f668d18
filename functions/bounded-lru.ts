/**
 * A map that keeps at most `capacity` entries, dropping the least recently used. A JavaScript
 * Map iterates in insertion order, so re-inserting on every touch keeps the oldest first.
 *
 * With `weigh`, the capacity is a total weight instead of a count (say, characters of text),
 * for entries whose sizes differ by orders of magnitude.
 */
export class BoundedLru<K, V> {
  private readonly entries = new Map<K, { value: V; weight: number }>();
  private total = 0;

  constructor(
    private readonly capacity: number,
    private readonly weigh: (key: K, value: V) => number = () => 1,
  ) {
    if (!(capacity >= 1)) throw new RangeError("a BoundedLru holds at least one entry");
  }

  get(k: K): V | undefined {
    const entry = this.entries.get(k);
    if (!entry) return undefined;
    this.entries.delete(k);
    this.entries.set(k, entry);
    return entry.value;
  }

  set(k: K, v: V): void {
    this.delete(k);
    const weight = this.weigh(k, v);
    this.entries.set(k, { value: v, weight });
    this.total += weight;
    // The newest entry stays even when it alone is over the capacity: the caller just made it.
    while (this.total > this.capacity && this.entries.size > 1) {
      const oldest = this.entries.keys().next();
      if (oldest.done) break;
      this.delete(oldest.value);
    }
  }

  delete(k: K): void {
    const entry = this.entries.get(k);
    if (!entry) return;
    this.entries.delete(k);
    this.total -= entry.weight;
  }

  get size(): number {
    return this.entries.size;
  }
}
