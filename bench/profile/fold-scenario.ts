import { fold } from "../../events/summary.js";
import { sealIncident } from "../lib/history.js";

/** The pure fold alone, for `node --cpu-prof --import tsx bench/profile/fold-scenario.ts`. */
const events = sealIncident("fold-profile", 1000);
let versions = 0;
const started = performance.now();
for (let i = 0; i < 300; i++) versions += fold("fold-profile", events).version;
process.stdout.write(
  `${((300 * 1000) / ((performance.now() - started) / 1000)).toFixed(0)} events/s (${versions})\n`,
);
