import { createHash, randomBytes } from "node:crypto";
import { TimestampTokenError } from "../../events/transparency/errors.js";
import { checkTimestampResponse, timestampRequest } from "../../events/transparency/timestamp-token.js";

/** A token as the TSA sent it: the whole DER TimeStampResp, and its genTime. */
export interface Timestamp {
  token: Uint8Array;
  genTime: Date;
}

/** The TSA answered too late, not at all, or with something other than a granted token over the body. */
export class TimestampAuthorityError extends Error {
  override name = "TimestampAuthorityError";
}

/** The most bytes a TSA's answer may take (a token with its certificate chain is a few KB). */
const MAX_RESPONSE_BYTES = 256 * 1024;

/**
 * An RFC 3161 client over HTTP (RFC 3161 §3.4): POSTs a TimeStampReq as
 * `application/timestamp-query` — the SHA-256 imprint of the text, a fresh 63-bit nonce, certReq
 * — and accepts only a granted response over that imprint with that nonce.
 */
export class TimestampAuthority {
  constructor(
    readonly url: string,
    private readonly timeoutMs = 10_000,
  ) {}

  /** A token over the SHA-256 of `text` (UTF-8). `signal` ends the request early (shutdown). */
  async stamp(text: string, signal?: AbortSignal): Promise<Timestamp> {
    const digest = new Uint8Array(createHash("sha256").update(text, "utf8").digest());
    const nonce = BigInt(`0x${randomBytes(8).toString("hex")}`) >> 1n;
    const timeout = AbortSignal.timeout(this.timeoutMs);
    let response: Response;
    let body: Uint8Array;
    try {
      response = await fetch(this.url, {
        method: "POST",
        headers: { "content-type": "application/timestamp-query", accept: "application/timestamp-reply" },
        body: timestampRequest(digest, nonce),
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
      body = new Uint8Array(await response.arrayBuffer());
    } catch (error) {
      const why = timeout.aborted ? `no answer within ${this.timeoutMs} ms` : String(error);
      throw new TimestampAuthorityError(`the TSA at ${this.url} did not answer: ${why}`);
    }
    if (response.status !== 200)
      throw new TimestampAuthorityError(`the TSA at ${this.url} answered ${response.status}`);
    if (body.length > MAX_RESPONSE_BYTES)
      throw new TimestampAuthorityError(`the TSA at ${this.url} answered ${body.length} bytes`);
    try {
      const info = checkTimestampResponse(body, { digest, nonce });
      return { token: body, genTime: info.genTime };
    } catch (error) {
      if (error instanceof TimestampTokenError)
        throw new TimestampAuthorityError(`the TSA at ${this.url}: ${error.message}`);
      throw error;
    }
  }
}
