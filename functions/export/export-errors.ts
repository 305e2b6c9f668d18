import { LedgerError } from "../errors.js";

/** Kept beside the exports (the edge maps every LedgerError the same way; see http/problem.ts). */
export class ReleaseNameTakenError extends LedgerError {
  readonly slug = "release-name-taken";
  readonly status = 409;
  readonly title = "A release with that name already exists";
}

export class NoCheckpointError extends LedgerError {
  readonly slug = "no-checkpoint";
  readonly status = 409;
  readonly title = "The log has no checkpoint yet";
}
