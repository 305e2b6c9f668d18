import { type Context, Hono } from "hono";
import type { Summary } from "../../../events/summarize.js";
import type { SearchIndex } from "../../finding/search-index.js";
import type { IncidentReader } from "../../incident-reader.js";
import { FINDING_PARAMS, type FindingParams, findingParamsFrom } from "../finding-params.js";
import { MapPageView, SourcePageView } from "../pages/finding-pages.js";
import { sourcePath } from "../pages/format.js";
import { MessagePage } from "../pages/layout.js";
import { renderPage } from "../pages/render-page.js";
import type { MapPoint } from "../pages/world-map.js";
import { findIncidents, sourcePage } from "./finding.js";
import { readPageFilters } from "./page-filters.js";

export interface FindingPageDeps {
  finding: SearchIndex;
  reader: IncidentReader;
}

/** Marks on one map at most: a page of the index, not the archive. */
const MAP_POINTS = 100;

/** The page's finding parameters, each bad one as a message for its field (a person is reading). */
export function readFindingForm(c: Context): { params: FindingParams; errors: Record<string, string> } {
  const errors: Record<string, string> = {};
  const params: FindingParams = {};
  for (const name of FINDING_PARAMS) {
    const raw = c.req.query(name);
    if (raw === undefined || raw.trim() === "") continue;
    try {
      // One parameter at a time, so each message names its own field.
      Object.assign(
        params,
        findingParamsFrom((n) => (n === name ? raw.trim() : undefined)),
      );
    } catch (error) {
      errors[name] = (error as Error).message.replace(/^query parameter /, "");
    }
  }
  if (params.from && params.to && params.from > params.to) errors.from = "from must not be after to";
  return { params, errors };
}

/** The finding parameters given, as given (trimmed), to put back in a form or a link. */
export function findingValues(c: Context): Record<string, string> {
  return Object.fromEntries(
    FINDING_PARAMS.flatMap((name) => {
      const value = c.req.query(name)?.trim();
      return value ? [[name, value]] : [];
    }),
  );
}

export function findingPageRoutes(deps: FindingPageDeps): Hono {
  const app = new Hono();

  app.get("/source/:name", async (c) => {
    const name = c.req.param("name");
    try {
      const page = await sourcePage(deps, name, 20, c.req.query("cursor"));
      const nextHref = page.nextCursor
        ? `${sourcePath(name)}?cursor=${encodeURIComponent(page.nextCursor)}`
        : null;
      return renderPage(c, 200, <SourcePageView name={name} records={page.items} nextHref={nextHref} />);
    } catch (error) {
      const status = (error as { status?: number }).status;
      if (status !== 404 && status !== 400) throw error;
      return renderPage(
        c,
        status,
        <MessagePage title={status === 404 ? "No such source" : "That page link is not valid"}>
          {status === 404 ? (
            <>
              <p>
                {"No incident names the source or speaker "}
                <bdi>{name}</bdi>
                {" as written here: a name is matched with its capitals as written."}
              </p>
              <p>
                <a href={`/?${new URLSearchParams({ q: name.slice(0, 500) })}`}>
                  Search for the words of that name
                </a>
                {" (in any case, in names, titles and quotes)."}
              </p>
            </>
          ) : (
            <p>{(error as Error).message}</p>
          )}
          <p>
            <a href="/">All incidents</a>
          </p>
        </MessagePage>,
      );
    }
  });

  app.get("/map", async (c) => {
    const { params, errors: findingErrors } = readFindingForm(c);
    const { filters, values: listValues, errors } = readPageFilters(c);
    Object.assign(errors, findingErrors);
    const values = { ...findingValues(c), ...listValues };
    const listHref = `/?${new URLSearchParams(values)}`;
    if (Object.keys(errors).length > 0) {
      return renderPage(
        c,
        400,
        <MapPageView points={[]} listHref={listHref} more={null} errors={errors} values={values} />,
      );
    }
    // The whole world when no box is given: the grid cells are the index the map reads.
    const bbox = params.bbox ?? { minLon: -180, minLat: -90, maxLon: 180, maxLat: 90 };
    // Every point asked for: a point is a line of the page, not the summary it was read from.
    // One more than it draws: whether more match is then known, not guessed from a cursor.
    const page = await findIncidents(deps, {
      ...params,
      bbox,
      limit: MAP_POINTS + 1,
      ...filters,
    });
    const points: MapPoint[] = page.items.slice(0, MAP_POINTS).flatMap((s: Summary) =>
      typeof s.location?.lat === "number" && typeof s.location?.lon === "number"
        ? [
            {
              incidentId: s.incidentId,
              title: s.title ?? s.incidentId,
              lat: s.location.lat,
              lon: s.location.lon,
              contested: s.contested,
            },
          ]
        : [],
    );
    return renderPage(
      c,
      200,
      <MapPageView
        points={points}
        {...(params.bbox ? { bbox: params.bbox } : {})}
        listHref={listHref}
        more={page.items.length > MAP_POINTS ? (params.q === undefined ? "newest" : "best") : null}
        errors={{}}
        values={values}
      />,
    );
  });

  return app;
}
