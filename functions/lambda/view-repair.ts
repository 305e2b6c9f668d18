import { createLedger } from "../ledger.js";
import { createLogger } from "../logger.js";
import { repairViews } from "../projector/view-repair.js";
import { createDynamoClient } from "../store/dynamo-client.js";
import { tableNamesFromEnv } from "../store/table-design.js";

// Wiring only: the scheduled view-repair sweep (the same code as `npm run rebuild`).
const log = createLogger();
const ledger = createLedger({ db: createDynamoClient(), tables: tableNamesFromEnv(process.env), log });
export const handler = async () => {
  const report = await repairViews({ ...ledger, log });
  // A view that could not be repaired fails the invocation, so the Errors alarm sees it.
  if (report.failed.length > 0) throw new Error(`could not repair ${report.failed.length} view(s)`);
  return { ...report, failed: report.failed.length };
};
