import { geoEqualEarth, geoPath } from "d3-geo";
import type { FC } from "hono/jsx";
import { feature } from "topojson-client";
import type { GeometryCollection, Topology } from "topojson-specification";
import world from "world-atlas/countries-110m.json" with { type: "json" };
import type { Bbox } from "../../../events/finding/search-doc.js";
import { isolate, viewPath } from "./format.js";

/** A point to draw: an incident with coordinates. */
export interface MapPoint {
  incidentId: string;
  title: string;
  lat: number;
  lon: number;
  contested: boolean;
}

const WIDTH = 960;
const HEIGHT = 500;
const topology = world as unknown as Topology<{ countries: GeometryCollection }>;
const countries = feature(topology, topology.objects.countries);

/** The area to show: the box asked for, else the points' extent with a margin, else the world. */
function extent(points: readonly MapPoint[], bbox?: Bbox): Bbox {
  if (bbox) return bbox;
  if (points.length === 0) return { minLon: -180, minLat: -60, maxLon: 180, maxLat: 85 };
  const lons = points.map((p) => p.lon);
  const lats = points.map((p) => p.lat);
  const pad = 2;
  return {
    minLon: Math.max(-180, Math.min(...lons) - pad),
    minLat: Math.max(-85, Math.min(...lats) - pad),
    maxLon: Math.min(180, Math.max(...lons) + pad),
    maxLat: Math.min(85, Math.max(...lats) + pad),
  };
}

/**
 * The map as inline SVG, drawn here: Natural Earth boundaries (world-atlas, 1:110m) in the
 * Equal Earth projection (d3-geo), fitted to the area; one linked mark per incident, with its
 * title as the mark's accessible name. Presentation attributes only (the pages' CSP allows no
 * inline style), no script.
 */
/** How far from their place marks that share it are drawn, in the drawing's units (a mark's radius is 5). */
const SPREAD = 6;

/**
 * Each point where it is drawn, in order; points that fall on one spot (to a unit) are set
 * around it on a small ring, so each mark can be seen and followed, none hidden under another.
 */
function spread<P>(
  points: readonly P[],
  project: (point: P) => [number, number] | null,
): { point: P; xy: [number, number] }[] {
  const placed = points.flatMap((point) => {
    const xy = project(point);
    return xy ? [{ point, xy, spot: `${Math.round(xy[0])},${Math.round(xy[1])}` }] : [];
  });
  const together = new Map<string, number>();
  for (const { spot } of placed) together.set(spot, (together.get(spot) ?? 0) + 1);
  const seen = new Map<string, number>();
  return placed.map(({ point, xy, spot }) => {
    const count = together.get(spot) ?? 1;
    if (count === 1) return { point, xy };
    const k = seen.get(spot) ?? 0;
    seen.set(spot, k + 1);
    const angle = (2 * Math.PI * k) / count - Math.PI / 2;
    return { point, xy: [xy[0] + SPREAD * Math.cos(angle), xy[1] + SPREAD * Math.sin(angle)] };
  });
}

export const WorldMap: FC<{ points: readonly MapPoint[]; bbox?: Bbox }> = ({ points, bbox }) => {
  const area = extent(points, bbox);
  const frame = {
    type: "Feature" as const,
    properties: {},
    geometry: {
      type: "MultiPoint" as const,
      coordinates: [
        [area.minLon, area.minLat],
        [area.maxLon, area.maxLat],
        [area.minLon, area.maxLat],
        [area.maxLon, area.minLat],
      ],
    },
  };
  const projection = geoEqualEarth().fitExtent(
    [
      [10, 10],
      [WIDTH - 10, HEIGHT - 10],
    ],
    frame,
  );
  const path = geoPath(projection);
  return (
    <svg
      viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
      width="100%"
      role="img"
      aria-labelledby="map-title"
      class="world-map"
      data-points={String(points.length)}
    >
      <title id="map-title">{`Map of ${points.length} incident(s) with coordinates`}</title>
      <rect x="0" y="0" width={String(WIDTH)} height={String(HEIGHT)} fill="#eef4f8" />
      <g fill="#f7f4ea" stroke="#9a9a8a" stroke-width="0.5">
        {countries.features.map((f) => {
          const d = path(f);
          return d ? <path d={d} /> : null;
        })}
      </g>
      <g>
        {/* Contested incidents drawn last, over any uncontested one at the same place. */}
        {spread([...points.filter((p) => !p.contested), ...points.filter((p) => p.contested)], (p) =>
          projection([p.lon, p.lat]),
        ).map(({ point: p, xy }) => {
          return (
            <a href={viewPath(p.incidentId)} data-incident={p.incidentId}>
              <title>{isolate(p.title)}</title>
              <circle
                cx={xy[0].toFixed(1)}
                cy={xy[1].toFixed(1)}
                r="5"
                fill={p.contested ? "#b3261e" : "#1f4e79"}
                fill-opacity="0.8"
                stroke="#ffffff"
                stroke-width="1"
              />
            </a>
          );
        })}
      </g>
    </svg>
  );
};
