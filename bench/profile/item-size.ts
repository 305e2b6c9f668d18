import type { AttributeValue } from "@aws-sdk/client-dynamodb";
import type { StoredEvent } from "../../events/stored-event.js";
import { commitToItem } from "../../functions/store/commit-item.js";
import { sealIncident } from "../lib/history.js";

/**
 * DynamoDB's size of the commit items our fixtures make (the rule from the DynamoDB developer
 * guide: attribute names plus values; numbers about one byte per two digits; lists 3 + 1 per element):
 *   tsx bench/profile/item-size.ts
 */
function valueSize(v: AttributeValue): number {
  if (v.S !== undefined) return Buffer.byteLength(v.S);
  if (v.N !== undefined) return Math.ceil(v.N.length / 2) + 1;
  if (v.B !== undefined) return v.B.length;
  if (v.BOOL !== undefined || v.NULL !== undefined) return 1;
  if (v.L !== undefined) return 3 + v.L.reduce((n, e) => n + 1 + valueSize(e), 0);
  if (v.M !== undefined)
    return 3 + Object.entries(v.M).reduce((n, [k, e]) => n + 1 + k.length + valueSize(e), 0);
  return 0;
}
const itemSize = (item: Record<string, AttributeValue>) =>
  Object.entries(item).reduce((n, [k, v]) => n + Buffer.byteLength(k) + valueSize(v), 0);

const events = sealIncident("kramatorsk-station-2022-04-08", 301);
const commitOf = (e: StoredEvent) =>
  commitToItem({
    incidentId: e.incidentId,
    version: e.version,
    lastVersion: e.version,
    events: [e],
    token: "bench",
  });
const sizes = events.slice(1).map((e) => itemSize(commitOf(e)));
const mean = sizes.reduce((a, b) => a + b, 0) / sizes.length;
const wcu = sizes.reduce((n, s) => n + Math.ceil(s / 1024), 0) / sizes.length;
process.stdout.write(
  `single-event commit item: mean ${mean.toFixed(0)} B (min ${Math.min(...sizes)}, max ${Math.max(...sizes)}), ${wcu.toFixed(2)} WCU each on average\n`,
);
const batch = events.slice(1, 26);
const batchItem = commitToItem({
  incidentId: "kramatorsk-station-2022-04-08",
  version: 2,
  lastVersion: 26,
  events: batch,
  token: "bench",
});
process.stdout.write(
  `25-event commit item: ${itemSize(batchItem)} B, ${Math.ceil(itemSize(batchItem) / 1024)} WCU\n`,
);
