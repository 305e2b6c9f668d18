import type { CategoriesAt } from "./store/append-path.js";
import type { EventStore } from "./store/event-store.js";
import type { ViewStore } from "./store/view-store.js";

/**
 * An incident's casualty categories at a version, for the cap on them: the projected state's
 * (one read of the view, which holds every category ever reported), and those of the reports
 * recorded after it, when the view lags. Categories are never removed (a retracted report's
 * category keeps its count of reports), so the set only grows.
 */
export function incidentCategories(events: () => EventStore, views: ViewStore): CategoriesAt {
  return async (incidentId, version) => {
    const state = await views.getState(incidentId);
    const found = new Set(Object.keys(state?.casualties ?? {}));
    const seen = state?.version ?? 0;
    if (seen < version)
      for (const event of await events().eventsBetween(incidentId, seen, version))
        if (event.type === "CasualtiesReported")
          for (const category of Object.keys(event.data.figures)) found.add(category);
    return found;
  };
}
