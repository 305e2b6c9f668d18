import type { AttributeValue } from "@aws-sdk/client-dynamodb";
import { IncidentId } from "../../events/schemas.js";
import { LIST_PARTITION } from "./table-design.js";

type Key = Record<string, AttributeValue>;

/** The listing's page cursor: the index key of the last item shown, opaque to clients. */
export function encodeCursor(key: Key): string {
  return Buffer.from(JSON.stringify(key)).toString("base64url");
}

/**
 * The key back, only if it has exactly the shape this archive gives out; a tampered one is
 * refused here rather than reaching the store as a malformed ExclusiveStartKey.
 */
export function decodeCursor(cursor: string): Key | null {
  let key: unknown;
  try {
    key = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    return null;
  }
  if (typeof key !== "object" || key === null || Array.isArray(key)) return null;
  const entries = Object.entries(key);
  const text = (v: unknown) =>
    typeof v === "object" &&
    v !== null &&
    Object.keys(v).length === 1 &&
    typeof (v as { S?: unknown }).S === "string"
      ? (v as { S: string }).S
      : null;
  const fields = Object.fromEntries(entries.map(([k, v]) => [k, text(v)]));
  const valid =
    entries.length === 3 &&
    fields.listPk === LIST_PARTITION &&
    typeof fields.incidentId === "string" &&
    IncidentId.safeParse(fields.incidentId).success &&
    typeof fields.activity === "string" &&
    // Exactly what ViewStore.save writes: `lastRecordedAt#incidentId` (which also bounds its size).
    fields.activity === `${fields.activity.slice(0, 24)}#${fields.incidentId}` &&
    /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/.test(fields.activity.slice(0, 24));
  return valid ? (key as Key) : null;
}

/** The listing key of an incident whose summary was last recorded at `lastRecordedAt`: a cursor that resumes after it. */
export function listKeyAfter(incidentId: string, lastRecordedAt: string | null): Key {
  return {
    incidentId: { S: incidentId },
    listPk: { S: LIST_PARTITION },
    activity: { S: `${lastRecordedAt ?? ""}#${incidentId}` },
  };
}
