import type { FieldError } from "../events/validate.js";

/**
 * Named errors with structured fields. Code deep inside throws these; one handler at the
 * edge (functions/http/problem.ts) turns each into an application/problem+json answer.
 */
export abstract class LedgerError extends Error {
  abstract readonly status: number;
  abstract readonly title: string;
  readonly errors: FieldError[] | undefined;
  readonly extra: Record<string, unknown>;
  constructor(detail: string, errors?: FieldError[], extra: Record<string, unknown> = {}) {
    super(detail);
    this.name = new.target.name;
    this.errors = errors;
    this.extra = extra;
  }
  /** The problem type's slug, documented under /docs#errors. */
  get slug(): string {
    return this.name
      .replace(/Error$/, "")
      .replace(/([a-z])([A-Z])/g, "$1-$2")
      .toLowerCase();
  }
}

export class MalformedRequestError extends LedgerError {
  readonly status = 400;
  readonly title = "Malformed request";
}
export class UnauthorizedError extends LedgerError {
  readonly status = 401;
  readonly title = "Missing or wrong credentials";
}
export class NotFoundError extends LedgerError {
  readonly status = 404;
  readonly title = "Not found";
}
export class VersionConflictError extends LedgerError {
  readonly status = 409;
  readonly title = "The incident is not at the expected version";
  constructor(
    readonly expectedVersion: number,
    readonly currentVersion: number,
  ) {
    super(
      `If-Match expected version ${expectedVersion}, but the incident is at version ${currentVersion}`,
      undefined,
      {
        expectedVersion,
        currentVersion,
      },
    );
  }
}
export class IncidentExistsError extends LedgerError {
  readonly status = 409;
  readonly title = "The incident already exists";
}
export class IncidentMissingError extends LedgerError {
  readonly status = 409;
  readonly title = "The incident does not exist";
}
export class EventIdConflictError extends LedgerError {
  readonly status = 409;
  readonly title = "The eventId is already taken";
}
export class PayloadTooLargeError extends LedgerError {
  readonly status = 413;
  readonly title = "Request body too large";
}
export class ValidationError extends LedgerError {
  readonly status = 422;
  readonly title = "The event is not valid";
}
export class StoreBusyError extends LedgerError {
  readonly status = 503;
  readonly title = "The incident is too busy; try again";
}
