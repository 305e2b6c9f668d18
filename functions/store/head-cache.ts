import type { ChainHead } from "../../events/stored-event.js";

/**
 * The last known head of each incident, so a warm writer can go straight to the conditional
 * put. It can only be stale, never wrong: commits are immutable, and a stale head loses the
 * race for its slot and is re-read. Bounded, dropping the least recently used.
 */
export class HeadCache {
  private readonly heads = new Map<string, ChainHead>();
  constructor(private readonly capacity: number) {}

  get(incidentId: string): ChainHead | undefined {
    const head = this.heads.get(incidentId);
    if (head) {
      this.heads.delete(incidentId);
      this.heads.set(incidentId, head);
    }
    return head;
  }

  set(incidentId: string, head: ChainHead): void {
    const known = this.heads.get(incidentId);
    if (known && known.version > head.version) return;
    this.heads.delete(incidentId);
    this.heads.set(incidentId, head);
    if (this.heads.size > this.capacity) {
      const oldest = this.heads.keys().next().value;
      if (oldest !== undefined) this.heads.delete(oldest);
    }
  }

  delete(incidentId: string): void {
    this.heads.delete(incidentId);
  }
}
