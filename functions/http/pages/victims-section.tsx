import type { FC } from "hono/jsx";
import { decodeDisclosure } from "../../../events/sealing.js";
import type { StoredEvent } from "../../../events/stored-event.js";
import type { VictimsSummary } from "../../../events/victims.js";
import type { ServedDisclosure } from "../../people/disclosure-reader.js";
import { sealedValueText } from "./format.js";

/** At most this many victims are listed on a page; the rest are counted. */
export const VICTIMS_LISTED = 100;

export interface VictimsView {
  counts: VictimsSummary;
  /** The latest victims lists, each with the disclosures this reader may see. */
  lists: { event: StoredEvent; disclosures: ServedDisclosure[]; erased: ReadonlySet<string> }[];
  /** Who reads restricted values here (a restricted-reader), or null. */
  restrictedReader: string | null;
}

const FIELDS = ["name", "nameVariants", "age", "ageRange", "place", "notes"] as const;

const counted = (counts: Record<string, number>) =>
  Object.entries(counts)
    .map(([k, n]) => `${k} ${n}`)
    .join(", ") || "none";

/**
 * The victims: counts for everyone; the public fields of each entry, public disclosures for
 * everyone, restricted ones only for a signed-in restricted-reader (the page says so: RestrictedNotice). A
 * sealed value this reader may not see is shown as withheld (or erased, once a redaction erased
 * it for good), never as its commitment's text.
 */
export const VictimsSection: FC<{ view: VictimsView }> = ({ view }) => {
  const { counts, lists } = view;
  if (counts.recorded === 0) return null;
  let left = VICTIMS_LISTED;
  return (
    <section aria-labelledby="victims-h" id="victims">
      <h2 id="victims-h">Victims</h2>
      <p data-victim-counts="">
        {`${counts.recorded} recorded, ${counts.distinct} distinct after same-person links, ${counts.named} named. By status: ${counted(counts.byStatus)}. By sex: ${counted(counts.bySex)}. By age group: ${counted(counts.byAgeGroup)}.`}
      </p>
      {lists.map(({ event, disclosures, erased }) => {
        const open = new Map<string, unknown>();
        for (const d of disclosures) open.set(d.pointer, decodeDisclosure(d.disclosure)?.value);
        const rows = (event.data.victims as Record<string, unknown>[]).slice(0, Math.max(0, left));
        left -= rows.length;
        // Six columns do not fit a phone: the table scrolls within the page, not the page.
        return (
          <div class="table-wrap">
            <table>
              <caption>{`Listed in event ${event.eventId} (v${event.version})`}</caption>
              <thead>
                <tr>
                  <th scope="col">Person</th>
                  <th scope="col">Sealed fields</th>
                  <th scope="col">Sex</th>
                  <th scope="col">Age group</th>
                  <th scope="col">Status</th>
                  <th scope="col">Died on</th>
                </tr>
              </thead>
              <tbody>
                {rows.map((v, i) => {
                  const sealed = FIELDS.filter((f) => v[f] !== undefined).map((f) => {
                    const pointer = `/data/victims/${i}/${f}`;
                    if (open.has(pointer)) return `${f}: ${sealedValueText(open.get(pointer))}`;
                    return `${f}: ${erased.has(pointer) ? "erased" : "withheld"}`;
                  });
                  return (
                    <tr>
                      {/* Numbered from 1, as the victims and redaction forms name them ("Person 2"). */}
                      <td>{String(i + 1)}</td>
                      <td dir="auto">{sealed.join(" · ") || "—"}</td>
                      <td>{String(v.sex ?? "—")}</td>
                      <td>{String(v.ageGroup ?? "—")}</td>
                      <td>{String(v.status ?? "—")}</td>
                      <td>{String(v.diedOn ?? "—")}</td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
        );
      })}
    </section>
  );
};

/** Said once at the page's top when it shows a restricted-reader values others do not see. */
export const RestrictedNotice: FC<{ reader: string }> = ({ reader }) => (
  <p class="tag tag-contested" data-restricted="">
    <bdi>{`Restricted: you are signed in as ${reader} (restricted-reader); this page shows withheld values and is recorded as read.`}</bdi>
  </p>
);
