import { writeFileSync } from "node:fs";
import { openApiDocument } from "../functions/http/openapi.js";

/**
 * Writes the OpenAPI document as built from the schemas (`npm run openapi -- dist/openapi.json`,
 * or to stdout): the same JSON the server serves, for a build step that ships it prebuilt or for
 * generating a client without a running server.
 */
const text = `${JSON.stringify(openApiDocument(), null, 2)}\n`;
const out = process.argv[2];
if (out) writeFileSync(out, text);
else process.stdout.write(text);
