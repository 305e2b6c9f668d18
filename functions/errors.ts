import type { FieldError } from "../events/validate.js";

/**
 * Named errors with structured fields. Code deep inside throws these; one handler at the
 * edge (functions/http/problem.ts) turns each into an application/problem+json answer.
 */
export abstract class LedgerError extends Error {
  abstract readonly status: number;
  abstract readonly title: string;
  /** The problem type, documented at /docs#problem-<slug>. Spelled out: bundlers rename classes. */
  abstract readonly slug: string;
  readonly errors: FieldError[] | undefined;
  readonly extra: Record<string, unknown>;
  constructor(detail: string, errors?: FieldError[], extra: Record<string, unknown> = {}) {
    super(detail);
    this.errors = errors;
    this.extra = extra;
  }
  /** `ValidationError` for slug `validation`: callers check errors by name, never by class identity. */
  override get name(): string {
    return `${this.slug.replace(/(^|-)([a-z])/g, (_m, _d, c: string) => c.toUpperCase())}Error`;
  }
}

export class MalformedRequestError extends LedgerError {
  readonly slug = "malformed-request";
  readonly status = 400;
  readonly title = "Malformed request";
}
/** The client closed the connection before its body was read: its own doing, not the server's. */
export class ClientClosedError extends LedgerError {
  readonly slug = "client-closed";
  readonly status = 400;
  readonly title = "The client closed the connection";
}
export class UnauthorizedError extends LedgerError {
  readonly slug = "unauthorized";
  readonly status = 401;
  readonly title = "Missing or wrong credentials";
}
export class ForbiddenError extends LedgerError {
  readonly slug = "forbidden";
  readonly status = 403;
  readonly title = "The caller lacks the role this needs";
}
/** A form posted from another site (its Origin is not the archive's): refused whatever the caller's roles. */
export class CrossSiteFormError extends LedgerError {
  readonly slug = "cross-site-form";
  readonly status = 403;
  readonly title = "A form from another site";
}
export class NotFoundError extends LedgerError {
  readonly slug = "not-found";
  readonly status = 404;
  readonly title = "Not found";
}
export class VersionConflictError extends LedgerError {
  readonly slug = "version-conflict";
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
  readonly slug = "incident-exists";
  readonly status = 409;
  readonly title = "The incident already exists";
}
export class IncidentMissingError extends LedgerError {
  readonly slug = "incident-missing";
  readonly status = 409;
  readonly title = "The incident does not exist";
}
export class EventIdConflictError extends LedgerError {
  readonly slug = "event-id-conflict";
  readonly status = 409;
  readonly title = "The eventId is already taken";
}
export class PayloadTooLargeError extends LedgerError {
  readonly slug = "payload-too-large";
  readonly status = 413;
  readonly title = "Request body too large";
}
export class ValidationError extends LedgerError {
  readonly slug = "validation";
  readonly status = 422;
  readonly title = "The event is not valid";
}
/** A direct upload asked for with a missing or malformed field: a request about bytes, not an event. */
export class InvalidUploadRequestError extends LedgerError {
  readonly slug = "invalid-upload-request";
  readonly status = 422;
  readonly title = "The upload request is not valid";
}
/** A release (POST /releases) asked for with a missing or malformed field: a name for a checkpoint, not an event. */
export class InvalidReleaseError extends LedgerError {
  readonly slug = "invalid-release";
  readonly status = 422;
  readonly title = "The release is not valid";
}
export class StoreBusyError extends LedgerError {
  readonly slug = "store-busy";
  readonly status = 503;
  readonly title = "The incident is too busy; try again";
}
