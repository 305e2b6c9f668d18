import type { Logger } from "../logger.js";
import type { Commit } from "../store/commit-item.js";
import { CheckpointPublisher } from "./checkpoints.js";
import type { LogStore } from "./log-store.js";
import { LogTiles } from "./log-tiles.js";
import { Sequencer, type SequencerEvents } from "./sequencer.js";
import type { LogSigner } from "./signer.js";
import { TimestampAuthority } from "./timestamp-authority.js";
import { TimestampKeeper } from "./timestamp-keeper.js";
import { timestampsOf } from "./timestamp-store.js";
import { WitnessClient, type WitnessConfig } from "./witness-client.js";

export interface LogServiceOptions {
  store: LogStore;
  events: SequencerEvents;
  allIncidents?: () => Promise<Iterable<string>>;
  /**
   * The scheduled catch-up's source when it keeps a position (AWS: RecentCommitIncidents): its
   * `list` replaces `allIncidents`, and `completed` is called once a full pass is signed.
   */
  catchUp?: { list(): Promise<{ incidents: Iterable<string> }>; completed(): Promise<void> };
  signer: LogSigner;
  log: Logger;
  witnesses?: readonly WitnessConfig[];
  /** How long one witness request may take (default 5 s). */
  witnessTimeoutMs?: number;
  /**
   * An RFC 3161 authority for tokens over checkpoints (LEDGER_TSA_URL). `follow`: each checkpoint
   * is offered as it is stored and a timer asks again (one process); else only `timestamps.tick()`
   * asks (AWS's schedule). `timeoutMs`: one request (default 10 s).
   */
  tsa?: { url: string; follow: boolean; timeoutMs?: number; minIntervalMs?: number };
}

type CatchUp = NonNullable<LogServiceOptions["catchUp"]>;

/** The sequencer and the checkpoint publisher, wired together: one pass sequences, then signs. */
export function createLogWriter(options: LogServiceOptions) {
  const tiles = new LogTiles(options.store);
  const sequencer = new Sequencer({
    store: options.store,
    tiles,
    events: options.events,
    log: options.log,
    ...(options.allIncidents ? { allIncidents: options.allIncidents } : {}),
    ...(options.catchUp
      ? { allIncidents: async () => (await (options.catchUp as CatchUp).list()).incidents }
      : {}),
  });
  const witnesses =
    options.witnesses && options.witnesses.length > 0
      ? new WitnessClient(options.witnesses, options.log, options.witnessTimeoutMs)
      : undefined;
  const tsa = options.tsa;
  const timestamps = tsa
    ? new TimestampKeeper({
        store: timestampsOf(options.store),
        latestCheckpoint: () => options.store.latestCheckpoint(),
        authority: new TimestampAuthority(tsa.url, tsa.timeoutMs),
        log: options.log,
        ...(tsa.minIntervalMs !== undefined ? { minIntervalMs: tsa.minIntervalMs } : {}),
      })
    : undefined;
  const publisher = new CheckpointPublisher({
    store: options.store,
    tiles,
    signer: options.signer,
    log: options.log,
    ...(witnesses ? { witnesses } : {}),
    ...(timestamps && tsa?.follow ? { onStored: (checkpoint) => timestamps.offer(checkpoint) } : {}),
  });
  /**
   * One sequencer pass over these incidents (all of them: undefined). Each run it stores asks for
   * a checkpoint at once (latest wins, see CheckpointPublisher), so a long pass publishes as it
   * goes; `checkpoint` resolves once one covers the whole pass.
   */
  const sequence = async (
    incidentIds?: Iterable<string>,
    carried?: ReadonlyMap<string, readonly Commit[]>,
  ) => {
    const progress = (size: number) => {
      // Its failure is the final request's too, which the caller awaits.
      publisher.publish(size).catch(() => undefined);
    };
    const result = incidentIds
      ? await sequencer.sequence(incidentIds, progress, carried)
      : await sequencer.sequenceAll(progress);
    return { ...result, checkpoint: publisher.publish(result.size) };
  };
  /** One pass, then a checkpoint over it (witnesses are asked after, see `witnessed`). */
  const pass = async (incidentIds?: Iterable<string>, carried?: ReadonlyMap<string, readonly Commit[]>) => {
    const result = await sequence(incidentIds, carried);
    const [checkpoint] = await Promise.all([result.checkpoint, sequencer.flushSettledSize()]);
    if (!incidentIds) await options.catchUp?.completed();
    return { ...result, checkpoint };
  };
  /** Resolves when the witnesses have answered (or timed out) on every checkpoint published so far. */
  const witnessed = () => publisher.witnessed();
  return { tiles, sequencer, publisher, sequence, pass, witnessed, timestamps };
}

export type LogWriter = ReturnType<typeof createLogWriter>;
