import { type Context, Hono } from "hono";
import { InvalidReleaseError, MalformedRequestError, NotFoundError } from "../../errors.js";
import { NoCheckpointError } from "../../export/export-errors.js";
import type { ExportBuilds } from "../../export/export-files.js";
import type { LogReader } from "../../export/log-reader.js";
import { NOTE_MAX, validNote } from "../../export/release-note.js";
import type { Release, ReleaseStore } from "../../export/release-store.js";
import type { Logger } from "../../logger.js";
import { type Authenticator, requireRole } from "../auth.js";
import { credentialsFirst } from "../credentials-first.js";
import { acceptQuery, intQuery } from "../params.js";
import { readJsonBody } from "../read-body.js";

export interface ReleaseRoutesDeps {
  releases: ReleaseStore;
  logReader: LogReader;
  authenticate: Authenticator;
  /** Builds a new release's exports ahead of the downloads (AWS: into the exports bucket). */
  builds?: ExportBuilds;
  log?: Logger;
  /** The archive's public origin (LEDGER_PUBLIC_URL): every absolute link is built on it, never on a request's Host. */
  publicUrl: () => string;
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

/** A release as the API shows it: the stored record, its export links and a citation line. */
export function releaseView(release: Release, origin: string) {
  const size = release.treeSize;
  const url = `${origin}/releases/${encodeURIComponent(release.name)}`;
  return {
    ...release,
    url,
    links: {
      incidentsCsv: `${origin}/export/incidents.csv?treeSize=${size}`,
      eventsNdjson: `${origin}/export/events.ndjson?treeSize=${size}`,
      ucdpGedCsv: `${origin}/export/ucdp-ged.csv?treeSize=${size}`,
      acledCsv: `${origin}/export/acled.csv?treeSize=${size}`,
      // The public disclosures of the events in those leaves (functions/people/people-routes.ts).
      disclosuresNdjson: `${origin}/export/disclosures.ndjson?treeSize=${size}`,
      feed: `${origin}/feed?after=-1`,
    },
    citation: citationLine(release, url),
  };
}

/** "incident-ledger release <name>, tree size N, root <base64>, <URL>": enough to fetch and check it. */
export function citationLine(release: Pick<Release, "name" | "treeSize" | "root">, url: string): string {
  return `incident-ledger release ${release.name}, tree size ${release.treeSize}, root ${release.root}, ${url}`;
}

export const RELEASES_MAX_LIMIT = 100;

/** The cursor is the number of the last release the previous page held. */
function releaseCursor(c: Context): number {
  const raw = c.req.query("cursor");
  if (raw === undefined) return 0;
  if (/^[1-9]\d{0,14}$/.test(raw)) return Number(raw);
  const message = "is not a cursor this archive gave out; pass nextCursor from the previous page unchanged";
  throw new MalformedRequestError(`cursor ${message}`, [{ path: "query.cursor", message }]);
}

/** POST /releases (writers) names the latest checkpoint; GET /releases lists them. */
export function releaseRoutes({
  releases,
  logReader,
  authenticate,
  builds,
  log,
  publicUrl,
}: ReleaseRoutesDeps) {
  const app = new Hono();
  const originOf = (_c: Context) => publicUrl();

  // Paged like GET /incidents (`limit`, `cursor` = the previous page's `nextCursor`), except
  // that `nextCursor` is only present while another page follows: a client that reads only
  // `items` still gets every release of an archive of up to RELEASES_MAX_LIMIT releases.
  app.get("/releases", acceptQuery("limit", "cursor"), async (c) => {
    const origin = originOf(c);
    const limit = intQuery(c, "limit", {
      min: 1,
      max: RELEASES_MAX_LIMIT,
      fallback: RELEASES_MAX_LIMIT,
    }) as number;
    const page = await releases.page(releaseCursor(c), limit);
    const items = page.items.map((r) => releaseView(r, origin));
    if (page.after === null) return c.json({ items });
    const nextCursor = String(page.after);
    const next = new URL(`${origin}${c.req.path}`);
    const given = c.req.query("limit");
    if (given !== undefined) next.searchParams.set("limit", given);
    next.searchParams.set("cursor", nextCursor);
    c.header("Link", `<${next.href}>; rel="next"`);
    return c.json({ items, nextCursor });
  });

  app.get("/releases/:name", acceptQuery(), async (c) => {
    const name = c.req.param("name");
    const release = NAME.test(name) ? await releases.byName(name) : null;
    if (!release) throw new NotFoundError(`no release named ${name}`);
    return c.json(releaseView(release, originOf(c)));
  });

  app.post("/releases", credentialsFirst(authenticate, "editor", "a release"), acceptQuery(), async (c) => {
    const createdBy = requireRole(authenticate, c, "editor", "a release").name;
    const { name, note } = parseReleaseBody(await readJsonBody(c, 16 * 1024));
    const checkpoint = await logReader.latestCheckpoint();
    // A release of the empty tree would cite nothing.
    if (!checkpoint || checkpoint.size === 0)
      throw new NoCheckpointError(
        "the log has no signed checkpoint of a non-empty tree yet: append an event first",
      );
    const release = await releases.create({
      name,
      note,
      treeSize: checkpoint.size,
      root: checkpoint.root,
      checkpoint: checkpoint.text,
      createdAt: new Date().toISOString(),
      createdBy,
    });
    // Releases are the big, citable downloads: build them once now. The release is stored
    // whatever happens here; without a built object its exports still stream.
    await builds?.start(release.treeSize).catch((error: Error) =>
      log?.error("could not start the release's export builds", {
        release: release.name,
        treeSize: release.treeSize,
        error: error.message,
      }),
    );
    const view = releaseView(release, originOf(c));
    c.header("Location", view.url);
    return c.json(view, 201);
  });

  return app;
}

function parseReleaseBody(body: unknown): { name: string; note: string } {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw new InvalidReleaseError("the body must be an object { name, note }", [
      { path: "(body)", message: "must be an object { name, note }" },
    ]);
  }
  const { name, note = "", ...rest } = body as Record<string, unknown>;
  const errors = [
    ...(typeof name === "string" && NAME.test(name)
      ? []
      : [
          {
            path: "name",
            message: "must be 1–100 characters of A-Z, a-z, 0-9, . _ and -, starting with a letter or digit",
          },
        ]),
    ...(typeof note === "string" && validNote(note)
      ? []
      : [
          {
            path: "note",
            message: `must be empty or text of at most ${NOTE_MAX} characters (code points), not blank, without control characters or lone surrogates`,
          },
        ]),
    ...Object.keys(rest).map((key) => ({ path: key, message: "is not a field of a release (name, note)" })),
  ];
  if (errors.length > 0) {
    throw new InvalidReleaseError(
      `the release is not valid: ${errors.map((e) => `${e.path} ${e.message}`).join("; ")}`,
      errors,
    );
  }
  return { name: name as string, note: note as string };
}
