import { invalidEnvelope, openedEnvelope, reportEnvelope } from "../lib/fixtures.js";
import { type HttpAnswer, httpClient } from "../lib/http-client.js";
import { sleep } from "./server.js";

export interface LoadPlan {
  url: string;
  token: string;
  writers: number;
  incidents: readonly string[];
  /** New requests stop at this time (performance.now() ms); answers still owed are chased a while longer. */
  until: number;
  /** Hard cap on requests, whatever the time. */
  maxRequests: number;
  /** How long after `until` a writer keeps retrying a request that got no answer. */
  graceMs: number;
  tag: string;
}

export interface LoadTally {
  sent: number;
  valid: number;
  duplicate: number;
  invalid: number;
  retriedAfterNoAnswer: number;
  created201: number;
  replayed200: number;
  invalid422: number;
  other4xx: number;
  server5xx: number;
  noAnswer: number;
  /** Answers that contradict the contract (e.g. a duplicate answered 201); listed in the report. */
  surprises: string[];
  /** eventId → incident, for every event the server acknowledged (201, or 200 on a retry). */
  acknowledged: Map<string, string>;
  /** Valid requests whose answer never came, even after retries (their outcome is unknown). */
  unresolved: Set<string>;
}

type Kind = "valid" | "duplicate" | "invalid";

/** 16 writers, a mix of new reports (80 %), exact resends of acknowledged ones (10 %) and invalid ones (10 %). */
export async function runSoakLoad(plan: LoadPlan): Promise<LoadTally> {
  const tally: LoadTally = {
    sent: 0,
    valid: 0,
    duplicate: 0,
    invalid: 0,
    retriedAfterNoAnswer: 0,
    created201: 0,
    replayed200: 0,
    invalid422: 0,
    other4xx: 0,
    server5xx: 0,
    noAnswer: 0,
    surprises: [],
    acknowledged: new Map(),
    unresolved: new Set(),
  };
  const client = httpClient(plan.url, plan.writers, 10_000);
  const auth = { authorization: `Bearer ${plan.token}` };
  const bodies = new Map<string, { incidentId: string; body: string }>();
  /** Acknowledged new reports, the pool duplicates are drawn from. */
  const resendable: string[] = [];

  /** Sends until an answer comes (retrying the same bytes: the eventId makes that safe) or time is up. */
  const deliver = async (kind: Kind, incidentId: string, body: string, eventId?: string) => {
    for (let attempt = 0; ; attempt++) {
      if (tally.sent >= plan.maxRequests && attempt === 0) return;
      tally.sent += 1;
      if (attempt > 0) tally.retriedAfterNoAnswer += 1;
      let answer: HttpAnswer;
      try {
        answer = await client.send("POST", `/incidents/${incidentId}/events`, body, auth);
      } catch {
        tally.noAnswer += 1;
        // An invalid request is not worth chasing; a valid one must be resolved.
        if (kind === "invalid" || performance.now() > plan.until + plan.graceMs) {
          if (eventId && kind !== "invalid") tally.unresolved.add(eventId);
          return;
        }
        await sleep(150);
        continue;
      }
      record(kind, answer, eventId, incidentId);
      if (answer.status >= 500 && kind !== "invalid" && performance.now() < plan.until + plan.graceMs) {
        await sleep(150);
        continue;
      }
      return;
    }
  };

  const record = (kind: Kind, answer: HttpAnswer, eventId: string | undefined, incidentId: string) => {
    const { status } = answer;
    if (status === 201) tally.created201 += 1;
    else if (status === 200) tally.replayed200 += 1;
    else if (status === 422) tally.invalid422 += 1;
    else if (status >= 500) tally.server5xx += 1;
    else tally.other4xx += 1;
    const expected = kind === "invalid" ? [422] : kind === "duplicate" ? [200] : [201, 200];
    if (!expected.includes(status) && status < 500 && tally.surprises.length < 20)
      tally.surprises.push(
        `${kind} ${eventId ?? ""} on ${incidentId}: ${status} ${answer.text.slice(0, 160)}`,
      );
    if (
      (status === 201 || status === 200) &&
      eventId &&
      kind === "valid" &&
      !tally.acknowledged.has(eventId)
    ) {
      tally.acknowledged.set(eventId, incidentId);
      resendable.push(eventId);
    }
  };

  const send = (kind: Kind, incidentId: string, envelope: Record<string, unknown>) => {
    const body = JSON.stringify(envelope);
    const eventId = envelope.eventId as string | undefined;
    if (eventId && kind === "valid") bodies.set(eventId, { incidentId, body });
    return deliver(kind, incidentId, body, eventId);
  };

  const writer = async (w: number) => {
    // Each writer opens its share of the incidents first, so every later report has a stream to go to.
    for (let k = w; k < plan.incidents.length; k += plan.writers) {
      const incidentId = plan.incidents[k] as string;
      await send("valid", incidentId, openedEnvelope(`${plan.tag}-open-${k}`));
    }
    await barrier();
    for (let n = 0; performance.now() < plan.until && tally.sent < plan.maxRequests; n++) {
      const incidentId = plan.incidents[Math.floor(Math.random() * plan.incidents.length)] as string;
      const roll = Math.random();
      if (roll < 0.1) {
        tally.invalid += 1;
        await send("invalid", incidentId, invalidEnvelope(`${plan.tag}-bad-${w}-${n}`));
      } else if (roll < 0.2 && resendable.length > 0) {
        tally.duplicate += 1;
        const id = resendable[Math.floor(Math.random() * resendable.length)] as string;
        const again = bodies.get(id) as { incidentId: string; body: string };
        await deliver("duplicate", again.incidentId, again.body, id);
      } else {
        tally.valid += 1;
        await send("valid", incidentId, reportEnvelope(n, `${plan.tag}-w${w}-${n}`));
      }
    }
  };

  let waiting = 0;
  let release: () => void = () => {};
  const opened = new Promise<void>((resolve) => {
    release = resolve;
  });
  const barrier = () => {
    waiting += 1;
    if (waiting === plan.writers) release();
    return opened;
  };

  await Promise.all(Array.from({ length: plan.writers }, (_, w) => writer(w)));
  client.close();
  return tally;
}
