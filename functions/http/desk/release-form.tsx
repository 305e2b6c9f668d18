import type { releaseView } from "../routes/releases.js";
import { type FormState, TextArea, TextField } from "./form-kit.js";

/** `POST /releases` from the desk: an editor names the latest checkpoint. */
export const ReleaseFields = ({ form }: { form: FormState }) => (
  <>
    <TextField
      form={form}
      name="name"
      label="Release name"
      hint="1–100 characters of letters, digits, dots, dashes and underscores, e.g. 2026-12-01"
      narrow
    />
    <TextArea form={form} name="note" label="Note" hint="What this release is for." optional rows={2} />
  </>
);

export const releaseFieldFor = (path: string) => (path === "name" || path === "note" ? path : null);
export const releaseLabel = (field: string) => (field === "name" ? "Release name" : "Note");

/** A release as GET /releases/{name} shows it. */
type ReleaseView = ReturnType<typeof releaseView>;

/**
 * What the desk shows once a release is named (or was already, by the same person with the same
 * note: a form sent again): what it names, how to cite it, and its exports.
 */
export const ReleaseNamed = ({ release, again }: { release: ReleaseView; again: boolean }) => (
  <>
    <div class="notice" role="status">
      <p>
        <strong>{again ? "This release was already named" : "Release named"}</strong>
        {again
          ? ": sending the form again stored nothing new."
          : ": it names the log's latest signed checkpoint, and its exports are the same bytes every time."}
      </p>
    </div>
    <h1>
      {"Release "}
      <bdi>{release.name}</bdi>
    </h1>
    <dl class="release">
      <dt>Tree size</dt>
      <dd>{`${release.treeSize} event(s)`}</dd>
      <dt>Root</dt>
      <dd>
        <code>{release.root}</code>
      </dd>
      <dt>Named</dt>
      <dd>
        <time datetime={release.createdAt}>{release.createdAt}</time>
        {" by "}
        <bdi>{release.createdBy}</bdi>
      </dd>
      {release.note ? (
        <>
          <dt>Note</dt>
          <dd>
            <bdi>{release.note}</bdi>
          </dd>
        </>
      ) : null}
    </dl>
    <h2>Cite it</h2>
    <p>
      <code>{release.citation}</code>
    </p>
    <h2>Its exports</h2>
    <ul>
      <li>
        <a href={release.links.incidentsCsv}>incidents.csv</a> (one row an incident)
      </li>
      <li>
        <a href={release.links.eventsNdjson}>events.ndjson</a> (every event)
      </li>
      <li>
        <a href={release.links.ucdpGedCsv}>ucdp-ged.csv</a> and <a href={release.links.acledCsv}>acled.csv</a>{" "}
        (the research layouts)
      </li>
      <li>
        <a href={release.links.disclosuresNdjson}>disclosures.ndjson</a> (the public disclosures)
      </li>
      <li>
        <a href={release.url}>the release as JSON</a>, with the signed checkpoint
      </li>
    </ul>
    <p>
      <a href="/desk">Back to the desk</a>
    </p>
  </>
);
