import { parseBuildRequest } from "../export/export-builds.js";
import { uploadExport } from "../export/export-upload.js";
import { createS3Client } from "../export/s3-client.js";
import { createLedger } from "../ledger.js";
import { createLogger } from "../logger.js";
import { createDynamoClient } from "../store/dynamo-client.js";
import { tableNamesFromEnv } from "../store/table-design.js";

// Wiring only: builds one export of one tree size into the exports bucket, invoked
// asynchronously with { treeSize, name } (by POST /releases through the data Lambda).
const log = createLogger();
const ledger = createLedger({ db: createDynamoClient(), tables: tableNamesFromEnv(process.env), log });
const s3 = createS3Client();
export const handler = async (event: unknown) => {
  const { treeSize, name } = parseBuildRequest(event);
  const built = await uploadExport({
    s3,
    bucket: process.env.EXPORTS_BUCKET ?? "",
    exporter: ledger.exports.exporter,
    logReader: ledger.exports.logReader,
    treeSize,
    name,
  });
  log.info("export built", { treeSize, name, ...built });
  return built;
};
