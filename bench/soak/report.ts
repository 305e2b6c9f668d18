/** What `npm run soak` measured; stored under `soak` in bench/results/latest.json. */
export interface SoakResults {
  date: string;
  commit: { sha: string; dirty: boolean };
  quick: boolean;
  durationSeconds: number;
  writers: number;
  incidents: number;
  kills: number;
  requests: { sent: number; valid: number; duplicate: number; invalid: number; retriedAfterNoAnswer: number };
  answers: {
    created201: number;
    replayed200: number;
    invalid422: number;
    other4xx: number;
    server5xx: number;
    noAnswer: number;
  };
  events: {
    acknowledged: number;
    stored: number;
    lost: number;
    duplicated: number;
    /** Stored, though the client never saw the answer (in flight at a kill): stored once, not lost. */
    storedWithoutAnswer: number;
  };
  chains: { incidents: number; ok: number; bad: string[] };
  views: { agree: number; disagree: string[]; catchUpSeconds: number };
  poisonedRecord: { failuresReported: number; namedTheRecord: boolean; goodRecordProjected: boolean };
  passed: boolean;
}

const yes = (ok: boolean) => (ok ? "yes" : "**no**");

export function renderSoak(s: SoakResults, heading = true): string {
  const rows: [string, string | number][] = [
    ["duration / writers / incidents", `${s.durationSeconds} s / ${s.writers} / ${s.incidents}`],
    ["server killed with SIGKILL and restarted", s.kills],
    [
      "requests sent (valid / duplicate eventId / invalid)",
      `${s.requests.sent} (${s.requests.valid} / ${s.requests.duplicate} / ${s.requests.invalid})`,
    ],
    ["requests retried after no answer (server down)", s.requests.retriedAfterNoAnswer],
    [
      "answers 201 / 200 (replay) / 422 / other 4xx",
      `${s.answers.created201} / ${s.answers.replayed200} / ${s.answers.invalid422} / ${s.answers.other4xx}`,
    ],
    ["5xx answers", s.answers.server5xx],
    ["no answer (connection refused or reset during a kill)", s.answers.noAnswer],
    ["events acknowledged", s.events.acknowledged],
    ["events stored (read back through GET …/events)", s.events.stored],
    ["stored without the client seeing the answer", s.events.storedWithoutAnswer],
    ["**lost** (acknowledged, not stored)", s.events.lost],
    ["**duplicated** (one eventId stored twice)", s.events.duplicated],
    ["hash chains verified (GET …/verify ok)", `${s.chains.ok} / ${s.chains.incidents}`],
    [
      "views agree with events after catch-up",
      `${s.views.agree} / ${s.chains.incidents} (in ${s.views.catchUpSeconds} s)`,
    ],
    [
      "poisoned stream record reported in batchItemFailures",
      `${yes(s.poisonedRecord.namedTheRecord)} (${s.poisonedRecord.failuresReported} failure; good record in the same batch projected: ${yes(s.poisonedRecord.goodRecordProjected)})`,
    ],
  ];
  return [
    ...(heading ? ["## Soak", ""] : []),
    `\`npm run soak${s.quick ? " -- --quick" : ""}\` on ${s.date.slice(0, 10)}, commit \`${s.commit.sha.slice(0, 12)}\`: ${s.passed ? "**passed**" : "**FAILED**"}.`,
    "",
    "| figure | value |",
    "| --- | ---: |",
    ...rows.map(([k, v]) => `| ${k} | ${v} |`),
    ...(s.chains.bad.length > 0 ? ["", `Chains that failed: ${s.chains.bad.join(", ")}`] : []),
    ...(s.views.disagree.length > 0 ? ["", `Views behind their events: ${s.views.disagree.join(", ")}`] : []),
  ].join("\n");
}
