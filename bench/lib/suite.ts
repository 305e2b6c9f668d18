import type { Progress } from "./progress.js";
import type { Row } from "./results.js";

/** How big each measurement is; `--quick` shrinks every one so the whole run stays under two minutes. */
export interface Sizes {
  /** Alternating rounds per comparison (medians are reported). */
  rounds: number;
  appendRequests: number;
  /** Incidents in the "many incidents" configurations. */
  manyIncidents: number;
  readRequests: number;
  asOfEvents: number;
  asOfRequests: number;
  rebuildEvents: number;
  rebuildIncidents: number;
  castoreOps: number;
  castoreStreams: number;
  importRuns: number;
  /** The `npm start` rows: seconds per autocannon run, rounds per side, appends read back with minVersion. */
  userSeconds: number;
  userWarmSeconds: number;
  userRounds: number;
  userReadAfterWrite: number;
}

export const FULL: Sizes = {
  rounds: 3,
  appendRequests: 1500,
  manyIncidents: 500,
  readRequests: 2000,
  asOfEvents: 1000,
  asOfRequests: 40,
  rebuildEvents: 100_000,
  rebuildIncidents: 1000,
  castoreOps: 800,
  castoreStreams: 48,
  importRuns: 7,
  userSeconds: 8,
  userWarmSeconds: 2,
  userRounds: 2,
  userReadAfterWrite: 1000,
};

export const QUICK: Sizes = {
  rounds: 1,
  appendRequests: 120,
  manyIncidents: 40,
  readRequests: 200,
  asOfEvents: 1000,
  asOfRequests: 5,
  rebuildEvents: 5000,
  rebuildIncidents: 100,
  castoreOps: 64,
  castoreStreams: 16,
  importRuns: 3,
  userSeconds: 1,
  userWarmSeconds: 1,
  userRounds: 1,
  userReadAfterWrite: 64,
};

export interface SuiteContext {
  sizes: Sizes;
  quick: boolean;
  progress: Progress;
}

export interface Suite {
  name: string;
  /** How many progress steps `run` takes, so the bar knows its length up front. */
  steps(sizes: Sizes): number;
  run(ctx: SuiteContext): Promise<Row[]>;
}
