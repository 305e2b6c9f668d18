/**
 * A map that keeps at most `capacity` entries, dropping the least recently used. A JavaScript
 * Map iterates in insertion order, so re-inserting on every touch keeps the oldest first.
 */
export class BoundedLru<K, V> {
  private readonly entries = new Map<K, V>();

  constructor(private readonly capacity: number) {
    if (!(capacity >= 1)) throw new RangeError("a BoundedLru holds at least one entry");
  }

  get(k: K): V | undefined {
    if (!this.entries.has(k)) return undefined;
    const v = this.entries.get(k) as V;
    this.entries.delete(k);
    this.entries.set(k, v);
    return v;
  }

  set(k: K, v: V): void {
    this.entries.delete(k);
    this.entries.set(k, v);
    if (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
  }

  delete(k: K): void {
    this.entries.delete(k);
  }

  get size(): number {
    return this.entries.size;
  }
}
