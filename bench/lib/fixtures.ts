/**
 * Report envelopes shaped like the sample's (≈ 0.5–1 KB each once stored), so the bytes that
 * travel and are stored are those of real use. Deterministic: the same i gives the same body.
 */
const AP = { publisher: "Associated Press", url: "https://apnews.com/article/russia-ukraine-kramatorsk" };
const NAMES = [
  "Pavlo Kyrylenko",
  "Volodymyr Zelensky",
  "Ministry of Defence of Russia",
  "Oleksandr Honcharenko",
];

export type Envelope = Record<string, unknown>;

export function openedEnvelope(eventId?: string): Envelope {
  return {
    ...(eventId ? { eventId } : {}),
    type: "IncidentOpened",
    source: AP,
    data: {
      title: "Missile strike on Kramatorsk railway station",
      kind: "missile-strike",
      location: {
        name: "Kramatorsk railway station",
        region: "Donetsk",
        country: "UA",
        lat: 48.72,
        lon: 37.56,
      },
      occurredAt: "2022-04-08T07:30:00Z",
      description: "A missile struck the station while thousands of civilians waited to be evacuated.",
    },
  };
}

/** The i-th report: casualty figures, statements and denials in turn, attributed to rotating sources. */
export function reportEnvelope(i: number, eventId?: string): Envelope {
  const name = NAMES[i % NAMES.length] as string;
  const base = {
    ...(eventId ? { eventId } : {}),
    occurredAt: "2022-04-08T10:00:00Z",
    source: {
      ...AP,
      publishedAt: "2022-04-08T18:00:00Z",
      title: "Rocket kills dozens at Ukraine train station",
    },
    attributedTo: { name, role: "Official", side: i % 3 === 2 ? "Russia" : "Ukraine" },
  };
  switch (i % 3) {
    case 0:
      return {
        ...base,
        type: "CasualtiesReported",
        data: {
          figures: {
            killed: { value: 30 + (i % 30), qualifier: "at-least" },
            injured: { min: 100, max: 100 + (i % 50), text: "more than a hundred" },
            childrenKilled: { value: 5, qualifier: "exact" },
          },
        },
      };
    case 1:
      return {
        ...base,
        type: "StatementMade",
        data: {
          quote: `Statement ${i}: the strike hit a crowd of civilians waiting for evacuation trains at the station.`,
          stance: "accuses",
          accuses: "Russia",
          channel: "Telegram",
        },
      };
    default:
      return {
        ...base,
        type: "DenialIssued",
        data: {
          claim: "responsibility for the strike on the station",
          counterClaim: "the missile type is not in service with the Russian armed forces",
          quote: "Tochka-U missiles are used only by the Ukrainian armed forces.",
        },
      };
  }
}

/** A report the schemas reject (422): an empty figures object. */
export function invalidEnvelope(eventId?: string): Envelope {
  return {
    ...(eventId ? { eventId } : {}),
    type: "CasualtiesReported",
    source: AP,
    attributedTo: { name: "Nobody" },
    data: { figures: {} },
  };
}
