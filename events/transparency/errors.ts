/** Named failures of the transparency code; the HTTP edge and the verifier map them to messages. */
export class MalformedNoteError extends Error {
  override name = "MalformedNoteError";
}

/** A signed note no trusted key verifies, or one a trusted key's signature contradicts. */
export class NoteVerificationError extends Error {
  override name = "NoteVerificationError";
}

export class MalformedCheckpointError extends Error {
  override name = "MalformedCheckpointError";
}

export class MalformedVerifierKeyError extends Error {
  override name = "MalformedVerifierKeyError";
}

export class MalformedTileError extends Error {
  override name = "MalformedTileError";
}

export class MalformedProofFileError extends Error {
  override name = "MalformedProofFileError";
}

export class MalformedLeafError extends Error {
  override name = "MalformedLeafError";
}

export class MalformedPolicyError extends Error {
  override name = "MalformedPolicyError";
}

/** An RFC 3161 time-stamp response that is refused, malformed, or not over what was asked. */
export class TimestampTokenError extends Error {
  override name = "TimestampTokenError";
}
