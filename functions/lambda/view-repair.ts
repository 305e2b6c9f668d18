import { createLedger } from "../ledger.js";
import { createLogger } from "../logger.js";
import { DisclosureStore } from "../people/disclosure-store.js";
import { sweepOrphanDisclosures } from "../people/orphan-sweep.js";
import { repairViews } from "../projector/view-repair.js";
import { createDynamoClient } from "../store/dynamo-client.js";
import { peopleTables, tableNamesFromEnv } from "../store/table-design.js";

// Wiring only: the scheduled view-repair sweep (the same code as `npm run rebuild`), then the
// orphan disclosures' (the same code as `npm run sweep:disclosures`).
const log = createLogger();
const db = createDynamoClient();
const tables = tableNamesFromEnv(process.env);
const ledger = createLedger({ db, tables, log });
const disclosures = new DisclosureStore(db, peopleTables(tables).disclosures);
export const handler = async () => {
  const report = await repairViews({ ...ledger, log });
  const orphans = await sweepOrphanDisclosures({
    disclosures,
    findEvent: (incidentId, eventId) => ledger.events.findEvent(incidentId, eventId),
    log,
  });
  // A view that could not be repaired fails the invocation, so the Errors alarm sees it.
  if (report.failed.length > 0) throw new Error(`could not repair ${report.failed.length} view(s)`);
  return { ...report, failed: report.failed.length, orphans };
};
