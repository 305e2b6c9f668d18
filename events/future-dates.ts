import type { Envelope } from "./schemas.js";
import type { FieldError } from "./validate.js";

/**
 * A report tells what has happened: when it happened, when it was said or published, when a
 * person died. None of those may be after the moment the archive records it; a day ahead is
 * allowed for the zones east of the recorder's and for clocks a little fast. A capture's own
 * time (`capturedAt`) is a tool's claim and is not checked: evidence is never refused for a
 * capturing machine's clock.
 */
const SLACK_MS = 24 * 60 * 60 * 1000;

/** The dates an event gives for what happened, each with its path in the event. */
function datesOf(envelope: Envelope): [string, unknown][] {
  const data = envelope.data as Record<string, unknown>;
  const found: [string, unknown][] = [
    ["occurredAt", envelope.occurredAt],
    ["source.publishedAt", envelope.source?.publishedAt],
    ["data.occurredAt", data.occurredAt],
    ["data.occurredOn", data.occurredOn],
    ["data.occurredUntil", data.occurredUntil],
  ];
  const victims: { diedOn?: unknown }[] = Array.isArray(data.victims) ? data.victims : [];
  for (const [i, v] of victims.entries()) found.push([`data.victims[${i}].diedOn`, v?.diedOn]);
  return found.filter(([, value]) => typeof value === "string");
}

/** The latest moment a date may name: a day counts from its start. */
const moment = (value: string) => Date.parse(value.length === 10 ? `${value}T00:00:00Z` : value);

/**
 * The dates of an event after `recordedAt` (its commit time, ISO), each refused naming its
 * path under `prefix` (`events[2].` in a batch).
 */
export function futureDates(envelope: Envelope, recordedAt: string, prefix = ""): FieldError[] {
  const latest = Date.parse(recordedAt) + SLACK_MS;
  const day = recordedAt.slice(0, 10);
  return datesOf(envelope)
    .filter(([, value]) => moment(value as string) > latest)
    .map(([path]) => ({
      path: `${prefix}${path}`,
      message: `must not be after the day it is recorded (${day}): a report tells what has happened`,
    }));
}
