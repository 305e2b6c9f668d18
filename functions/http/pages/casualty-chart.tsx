import type { FC } from "hono/jsx";
import { describeFigure } from "../../../events/figures.js";
import type { CategoryChart, ChartPoint } from "./chart-model.js";
import { yAxis } from "./chart-model.js";
import { categoryHeading, categoryLabel, describeRange, formatInstant, headline, isolate } from "./format.js";
import { Speaker } from "./speaker.js";

/**
 * One casualty category: who says how many, the figures over time as an inline SVG chart
 * (x: version, i.e. the order the archive recorded them; y: people), and the same data as a
 * table for screen readers and for copying. Colours and shapes are SVG attributes, not
 * style attributes, so the page's Content-Security-Policy needs no 'unsafe-inline'.
 */

// Colours at 4.5:1 or more against white; the shape differs too, for readers who cannot tell colours apart.
const COLOURS = ["#1f5fa8", "#b3261e", "#1d6b36", "#7b3fa0", "#8a5300", "#00727a", "#8a3b62", "#4d4d4d"];
const SHAPES = ["circle", "square", "diamond", "triangle"] as const;
type Shape = (typeof SHAPES)[number];

const W = 560;
const H = 250;
const M = { left: 60, right: 16, top: 16, bottom: 46 };
const PLOT_W = W - M.left - M.right;
const PLOT_H = H - M.top - M.bottom;

/** The n-th source's colour and marker; past eight sources the shapes shift, so no two look alike. */
export const sourceStyle = (index: number) => ({
  colour: COLOURS[index % COLOURS.length] as string,
  shape: SHAPES[(index + Math.floor(index / COLOURS.length)) % SHAPES.length] as Shape,
});

const Marker: FC<{ shape: Shape; x: number; y: number; colour: string; hollow: boolean }> = (p) => {
  const fill = p.hollow ? "#ffffff" : p.colour;
  const common = {
    fill,
    stroke: p.colour,
    "stroke-width": 2,
    ...(p.hollow ? { "stroke-dasharray": "3 2" } : {}),
  };
  const r = 6;
  switch (p.shape) {
    case "circle":
      return <circle cx={p.x} cy={p.y} r={r} {...common} />;
    case "square":
      return <rect x={p.x - r} y={p.y - r} width={2 * r} height={2 * r} {...common} />;
    case "diamond":
      return (
        <polygon
          points={`${p.x},${p.y - r - 1} ${p.x + r + 1},${p.y} ${p.x},${p.y + r + 1} ${p.x - r - 1},${p.y}`}
          {...common}
        />
      );
    case "triangle":
      return (
        <polygon
          points={`${p.x},${p.y - r - 1} ${p.x + r + 1},${p.y + r} ${p.x - r - 1},${p.y + r}`}
          {...common}
        />
      );
  }
};

/** A legend swatch: the source's marker in a tiny SVG of its own, so the legend can be HTML and wrap. */
export const Swatch: FC<{ index: number; hollow?: boolean }> = ({ index, hollow }) => {
  const { colour, shape } = sourceStyle(index);
  return (
    <svg class="swatch" viewBox="0 0 20 20" width="20" height="20" aria-hidden="true" focusable="false">
      <Marker shape={shape} x={10} y={10} colour={colour} hollow={hollow ?? false} />
    </svg>
  );
};

const round1 = (n: number) => Math.round(n * 10) / 10;

function scales(chart: CategoryChart, lastVersion: number) {
  const versions = [...chart.points.map((p) => p.version), ...chart.band.map((b) => b.version)];
  const first = Math.min(...versions, lastVersion);
  const span = lastVersion - first;
  const pad = Math.max(0.6, span * 0.04);
  // Tenths of a pixel are plenty, and keep the markup of a long chart short.
  const x = (v: number) => round1(M.left + ((v - first + pad) / (span + 2 * pad)) * PLOT_W);
  // Headroom above the largest bound, so an open-ended arrow and the top marker stay visible.
  const top = Math.max(
    1,
    ...chart.points.map((p) => Math.max(p.at, p.high ?? p.low)),
    ...chart.band.map((b) => b.high ?? b.low ?? 0),
  );
  const axis = yAxis(top * 1.15);
  const y = (n: number) => round1(M.top + PLOT_H - (n / axis.max) * PLOT_H);
  return { x, y, first, last: lastVersion, axis, right: M.left + PLOT_W };
}

/** Version ticks: every version when there are few, else about eight evenly spaced ones. */
function versionTicks(first: number, last: number): number[] {
  const step = Math.max(1, Math.ceil((last - first) / 8));
  const out: number[] = [];
  for (let v = first; v < last; v += step) out.push(v);
  out.push(last);
  return out;
}

/** The stepped line of one source: each live report holds until the source's next one. */
function stepPath(points: ChartPoint[], x: (v: number) => number, y: (n: number) => number, end: number) {
  const live = points.filter((p) => !p.retracted);
  if (live.length === 0) return null;
  const [head, ...rest] = live as [ChartPoint, ...ChartPoint[]];
  let d = `M${x(head.version).toFixed(1)},${y(head.at).toFixed(1)}`;
  for (const p of rest) d += ` H${x(p.version).toFixed(1)} V${y(p.at).toFixed(1)}`;
  return `${d} H${end.toFixed(1)}`;
}

const PointMark: FC<{
  p: ChartPoint;
  index: number;
  x: (v: number) => number;
  y: (n: number) => number;
  top: number;
}> = ({ p, index, x, y, top }) => {
  const { colour, shape } = sourceStyle(index);
  const cx = x(p.version);
  const yLow = y(p.low);
  const yHigh = p.high === null ? top : y(p.high);
  const label = `${isolate(p.source)}: ${isolate(p.words)} (v${p.version}, recorded ${formatInstant(p.recordedAt)}, ${isolate(p.publisher)})${
    p.retracted ? " — retracted" : ""
  }`;
  return (
    <g
      class={p.retracted ? "pt retracted" : "pt"}
      data-point=""
      data-source={p.source}
      data-event-id={p.eventId}
      data-version={p.version}
      data-low={p.low}
      data-high={p.high === null ? "" : p.high}
      data-figure={p.words}
      data-retracted={p.retracted ? "true" : "false"}
    >
      <title>{label}</title>
      {yHigh < yLow ? (
        <line x1={cx} x2={cx} y1={yLow} y2={yHigh} stroke={colour} stroke-width={2} stroke-opacity={0.7} />
      ) : null}
      {p.high === null ? (
        // Open-ended: an arrow to the top of the plot ("at least", no upper bound).
        <polygon points={`${cx},${top - 2} ${cx + 5},${top + 7} ${cx - 5},${top + 7}`} fill={colour} />
      ) : null}
      <Marker shape={shape} x={cx} y={y(p.at)} colour={colour} hollow={p.retracted} />
      {p.retracted ? (
        <>
          <line x1={cx - 9} y1={y(p.at) + 9} x2={cx + 9} y2={y(p.at) - 9} stroke="#1a1a1a" stroke-width={2} />
          <text x={cx + 10} y={y(p.at) - 10} class="retracted-label">
            retracted
          </text>
        </>
      ) : null}
    </g>
  );
};

export const CasualtyChart: FC<{ chart: CategoryChart; lastVersion: number; id: string }> = ({
  chart,
  lastVersion,
  id,
}) => {
  const s = scales(chart, lastVersion);
  const index = (source: string) => chart.sources.indexOf(source);
  const band = chart.band.map((step, i) => ({ ...step, to: chart.band[i + 1]?.version }));
  const desc = `${chart.points.length} report(s) from ${chart.sources.length} source(s), by version. ${chart.points
    .map((p) => `v${p.version} ${isolate(p.source)}: ${isolate(p.words)}${p.retracted ? " (retracted)" : ""}`)
    .join("; ")}. Combined range: ${describeRange(chart.summary.low, chart.summary.high)}.`;
  return (
    <svg
      class="chart"
      viewBox={`0 0 ${W} ${H}`}
      role="img"
      aria-labelledby={`${id}-title ${id}-desc`}
      data-category={chart.category}
    >
      <title id={`${id}-title`}>{`${categoryHeading(chart.category)}: each source's figure over time`}</title>
      <desc id={`${id}-desc`}>{desc}</desc>
      <g class="band" data-band="" data-low={chart.summary.low ?? ""} data-high={chart.summary.high ?? ""}>
        {band.map((b) =>
          b.low === null ? null : (
            <rect
              x={s.x(b.version)}
              width={Math.max(0, (b.to === undefined ? s.right : s.x(b.to)) - s.x(b.version))}
              y={b.high === null ? M.top : s.y(b.high)}
              height={s.y(b.low) - (b.high === null ? M.top : s.y(b.high)) || 2}
              fill="#cfe0f3"
              stroke="#6b8fba"
              stroke-dasharray={b.high === null ? "4 3" : undefined}
            >
              <title>{`Range from v${b.version}: ${describeRange(b.low, b.high)}`}</title>
            </rect>
          ),
        )}
      </g>
      <g class="axis">
        {s.axis.ticks.map((t) => (
          <>
            <line x1={M.left} x2={s.right} y1={s.y(t)} y2={s.y(t)} stroke="#d0d0d0" />
            <text x={M.left - 6} y={s.y(t)} text-anchor="end" dominant-baseline="middle">
              {t.toLocaleString("en-US")}
            </text>
          </>
        ))}
        {versionTicks(s.first, s.last).map((v) => (
          <text
            x={s.x(v)}
            y={H - M.bottom + 6}
            text-anchor="middle"
            dominant-baseline="hanging"
          >{`v${v}`}</text>
        ))}
        <text x={s.right} y={H - 4} text-anchor="end" class="axis-title">
          version (order recorded) →
        </text>
      </g>
      {chart.sources.map((source) => {
        const d = stepPath(
          chart.points.filter((p) => p.source === source),
          s.x,
          s.y,
          s.right,
        );
        return d ? (
          <path
            d={d}
            fill="none"
            stroke={sourceStyle(index(source)).colour}
            stroke-width={2}
            stroke-opacity={0.6}
          />
        ) : null;
      })}
      {chart.points.map((p) => (
        <PointMark p={p} index={index(p.source)} x={s.x} y={s.y} top={M.top} />
      ))}
    </svg>
  );
};

const ChartLegend: FC<{ chart: CategoryChart }> = ({ chart }) => (
  <ul class="legend" aria-label="Legend">
    {chart.sources.map((source, i) => (
      <li>
        <Swatch index={i} /> <bdi>{source}</bdi>
      </li>
    ))}
    <li>
      <svg class="swatch" viewBox="0 0 20 20" width="20" height="20" aria-hidden="true" focusable="false">
        <rect x="1" y="4" width="18" height="12" fill="#cfe0f3" stroke="#6b8fba" />
      </svg>{" "}
      combined range (summary low–high)
    </li>
    {chart.points.some((p) => p.retracted) ? (
      <li>
        <Swatch index={0} hollow /> hollow, struck through: retracted report
      </li>
    ) : null}
  </ul>
);

const ReportsTable: FC<{ chart: CategoryChart }> = ({ chart }) => (
  <details class="data-table">
    <summary>{`Reports of ${categoryLabel(chart.category)} as a table (${chart.points.length})`}</summary>
    <div class="table-wrap">
      <table>
        <thead>
          <tr>
            <th scope="col">Version</th>
            <th scope="col">Recorded</th>
            <th scope="col">Source</th>
            <th scope="col">Figure</th>
            <th scope="col">Bounds</th>
            <th scope="col">As reported</th>
            <th scope="col">Published by</th>
          </tr>
        </thead>
        <tbody>
          {chart.points.map((p) => (
            <tr class={p.retracted ? "retracted" : undefined} data-row-event-id={p.eventId}>
              <td>
                <a href={`#ev-${p.eventId}`}>{`v${p.version}`}</a>
              </td>
              <td>
                <time datetime={p.recordedAt}>{formatInstant(p.recordedAt)}</time>
              </td>
              <td dir="auto">{p.source}</td>
              <td>
                {p.retracted ? (
                  <>
                    <s>{p.words}</s> <strong class="tag tag-retracted">retracted</strong>
                  </>
                ) : (
                  p.words
                )}
              </td>
              <td>{describeRange(p.low, p.high)}</td>
              <td dir="auto">{p.figure.text ?? "—"}</td>
              <td dir="auto">{p.publisher}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  </details>
);

/** Heading, "according to whom", chart with legend, and the table fallback for one category. */
export const CasualtyCategory: FC<{
  chart: CategoryChart;
  lastVersion: number;
  incidentId: string;
  /** Rows of "who reported it" drawn at most (the page's budget); the rest are linked. */
  maxRows: number;
}> = ({ chart, lastVersion, incidentId, maxRows }) => {
  const id = `chart-${chart.category}`;
  const label = categoryLabel(chart.category);
  const count = chart.summary.sourceCount ?? chart.summary.bySource.length;
  const rows = chart.summary.bySource.slice(0, maxRows);
  return (
    <section class="category" aria-labelledby={`${id}-h`} data-category={chart.category}>
      <h3 id={`${id}-h`}>
        {`${categoryHeading(chart.category)}: `}
        <span class="range">{headline(chart.summary)}</span>
      </h3>
      <p class="range-note">
        {`Combined range ${describeRange(chart.summary.low, chart.summary.high)}, from ${count} live source(s); ${chart.summary.reports} report(s) recorded in all.`}
      </p>
      <ul class="by-source" aria-label={`Who reported ${label}`}>
        {rows.map((row) => (
          <li>
            <strong>{describeFigure(row.figure)}</strong> according to <Speaker who={row.attributedTo} />{" "}
            <span class="muted">
              (v{row.version}, <bdi>{row.publisher}</bdi>)
            </span>
          </li>
        ))}
      </ul>
      {count > rows.length ? (
        <p class="muted">
          {rows.length > 0 ? `The ${rows.length} most recent of ${count} sources; ` : `${count} sources; `}
          <a
            href={`/incidents/${encodeURIComponent(incidentId)}/casualties/${encodeURIComponent(chart.category)}/sources`}
          >
            every source (JSON)
          </a>
          .
        </p>
      ) : null}
      <figure class="chart-figure">
        <CasualtyChart chart={chart} lastVersion={lastVersion} id={id} />
        <figcaption>
          <ChartLegend chart={chart} />
        </figcaption>
      </figure>
      <ReportsTable chart={chart} />
    </section>
  );
};
