import { emptyState, evolve, type IncidentState } from "../../events/summary.js";
import type { ClaimTable } from "../store/claims.js";
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
  constructor(
    private readonly events: EventStore,
    private readonly views: ViewStore,
    /** Registers ids the server made, so a client reusing one later gets its 409. */
    private readonly claims?: ClaimTable,
  ) {}

  async project(incidentId: string): Promise<ProjectionResult> {
    const stored = await this.views.getState(incidentId);
    let state: IncidentState = stored ?? emptyState(incidentId);
    const from = state.version;
    const generated: { eventId: string; slot: number }[] = [];
    for await (const commit of this.events.commits(incidentId, from)) {
      for (const event of commit.events) state = evolve(state, event);
      for (const eventId of commit.generatedIds) generated.push({ eventId, slot: commit.version });
    }
    if (state.version === from) return { incidentId, from, to: from, saved: false };
    const claims = this.claims;
    if (claims) await Promise.all(generated.map((g) => claims.tryClaim({ ...g, incidentId })));
    const saved = await this.views.save(state);
    return { incidentId, from, to: state.version, saved };
  }
}
