import type { StoredEvent } from "../../events/stored-event.js";
import { fold, type IncidentState } from "../../events/summary.js";
import type { EventStore } from "../store/event-store.js";
import type { ViewStore } from "../store/view-store.js";

export interface ProjectionResult {
  incidentId: string;
  from: number;
  to: number;
  saved: boolean;
}

/**
 * Brings one incident's view up to the store. It never trusts what triggered it: whatever
 * record arrives, duplicated or out of order, it reads the view's version and folds every
 * stored event after it, then saves with a condition on the version.
 */
export class Projector {
  private readonly recent = new Map<string, IncidentState>();

  constructor(
    private readonly events: EventStore,
    private readonly views: ViewStore,
  ) {}

  async project(incidentId: string): Promise<ProjectionResult> {
    const base = this.recent.get(incidentId) ?? (await this.views.getState(incidentId)) ?? undefined;
    const from = base?.version ?? 0;
    const missed: StoredEvent[] = [];
    for await (const commit of this.events.commits(incidentId, from, true)) {
      missed.push(...commit.events);
    }
    if (missed.length === 0) return { incidentId, from, to: from, saved: false };
    const state = fold(incidentId, missed, base);
    const saved = await this.views.save(state);
    this.remember(state);
    return { incidentId, from, to: state.version, saved };
  }

  /**
   * A state at version N is the same whoever folded it, so a remembered one is as good as the
   * stored view: it spares re-reading the view. If another projector saved further, our save is
   * refused by its version condition and the next fold simply continues from ours.
   */
  private remember(state: IncidentState): void {
    this.recent.delete(state.incidentId);
    this.recent.set(state.incidentId, state);
    if (this.recent.size > 1_000) {
      const oldest = this.recent.keys().next().value;
      if (oldest !== undefined) this.recent.delete(oldest);
    }
  }
}
