/**
 * The sequencer's health in CloudWatch Embedded Metric Format: one JSON log line per run, which
 * CloudWatch turns into metrics (no SDK, no extra call). The stack alarms on them
 * (infra/transparency-log.ts), so the names live here for both.
 */
export const LOG_METRICS = {
  namespace: "IncidentLedger/TransparencyLog",
  dimension: "Origin",
  /** Events found stored but not in a signed checkpoint when a run ended (0 after a good run). */
  leavesBehind: "LeavesBehind",
  /**
   * How long the oldest event a run handled had waited for a signed checkpoint: from its
   * recordedAt to the signature (or, when the run failed, to the end of the run).
   */
  checkpointDelay: "CheckpointDelaySeconds",
  /**
   * How long the newest signed checkpoint has waited for an RFC 3161 token (0: it has one), as
   * of each time-stamping step (the TSA's schedule, when LEDGER_TSA_URL is set).
   */
  timestampDelay: "TimestampDelaySeconds",
} as const;

export interface LogRunHealth {
  origin: string;
  leavesBehind: number;
  checkpointDelaySeconds: number;
}

/** The EMF line for one run (https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/CloudWatch_Embedded_Metric_Format_Specification.html). */
export function emfLine(health: LogRunHealth, now: number): string {
  return JSON.stringify({
    _aws: {
      Timestamp: now,
      CloudWatchMetrics: [
        {
          Namespace: LOG_METRICS.namespace,
          Dimensions: [[LOG_METRICS.dimension]],
          Metrics: [
            { Name: LOG_METRICS.leavesBehind, Unit: "Count" },
            { Name: LOG_METRICS.checkpointDelay, Unit: "Seconds" },
          ],
        },
      ],
    },
    [LOG_METRICS.dimension]: health.origin,
    [LOG_METRICS.leavesBehind]: health.leavesBehind,
    [LOG_METRICS.checkpointDelay]: health.checkpointDelaySeconds,
  });
}

/** The EMF line for one time-stamping step: how long the newest checkpoint has waited for a token. */
export function timestampEmfLine(
  health: { origin: string; timestampDelaySeconds: number },
  now: number,
): string {
  return JSON.stringify({
    _aws: {
      Timestamp: now,
      CloudWatchMetrics: [
        {
          Namespace: LOG_METRICS.namespace,
          Dimensions: [[LOG_METRICS.dimension]],
          Metrics: [{ Name: LOG_METRICS.timestampDelay, Unit: "Seconds" }],
        },
      ],
    },
    [LOG_METRICS.dimension]: health.origin,
    [LOG_METRICS.timestampDelay]: health.timestampDelaySeconds,
  });
}
