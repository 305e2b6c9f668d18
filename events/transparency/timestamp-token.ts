import * as asn1js from "asn1js";
import * as pkijs from "pkijs";
import { TimestampTokenError } from "./errors.js";

/**
 * RFC 3161 time-stamp requests and responses over a checkpoint body, with pkijs and asn1js (no
 * hand-written DER). Shared by the log's client (functions/log/timestamp-authority.ts) and the
 * verifier (scripts/verify), which needs nothing else of the server. The caller brings the
 * randomness (the nonce) and the SHA-256 digest.
 */

const SHA256 = "2.16.840.1.101.3.4.2.1";
const TST_INFO = "1.2.840.113549.1.9.16.1.4";
const SIGNED_DATA = "1.2.840.113549.1.7.2";
const EXT_KEY_USAGE = "2.5.29.37";
const TIME_STAMPING = "1.3.6.1.5.5.7.3.8";

/** What a granted response says. */
export interface TimestampInfo {
  genTime: Date;
  /** The token's serial number (lowercase hex), unique per TSA. */
  serial: string;
  /** The TSA's policy OID. */
  policy: string;
  /** The nonce the TSA echoed, if any. */
  nonce: bigint | null;
  /** The SHA-256 message imprint. */
  digest: Uint8Array;
}

const view = (bytes: Uint8Array): ArrayBuffer => new Uint8Array(bytes).buffer;
const hex = (bytes: ArrayBuffer | Uint8Array) => Buffer.from(bytes as ArrayBuffer).toString("hex");
const equalBytes = (a: Uint8Array, b: Uint8Array) =>
  a.length === b.length && a.every((byte, i) => byte === b[i]);

/** The DER TimeStampReq over a SHA-256 digest, asking for the TSA's certificate (certReq). */
export function timestampRequest(digest: Uint8Array, nonce: bigint): Uint8Array {
  if (digest.length !== 32) throw new TimestampTokenError("a SHA-256 digest is 32 bytes");
  const request = new pkijs.TimeStampReq({
    version: 1,
    messageImprint: new pkijs.MessageImprint({
      hashAlgorithm: new pkijs.AlgorithmIdentifier({
        algorithmId: SHA256,
        algorithmParams: new asn1js.Null(),
      }),
      hashedMessage: new asn1js.OctetString({ valueHex: view(digest) }),
    }),
    nonce: asn1js.Integer.fromBigInt(nonce),
    certReq: true,
  });
  return new Uint8Array(request.toSchema().toBER(false));
}

function parseResponse(der: Uint8Array): pkijs.TimeStampResp {
  try {
    return pkijs.TimeStampResp.fromBER(view(der));
  } catch (error) {
    throw new TimestampTokenError(`not an RFC 3161 TimeStampResp: ${(error as Error).message}`);
  }
}

function signedDataOf(response: pkijs.TimeStampResp): pkijs.SignedData {
  const status = response.status.status;
  if (status !== pkijs.PKIStatus.granted && status !== pkijs.PKIStatus.grantedWithMods) {
    const text = response.status.statusStrings?.map((s) => s.valueBlock.value).join("; ") ?? "";
    throw new TimestampTokenError(
      `the TSA did not grant the request (status ${status}${text ? `: ${text}` : ""})`,
    );
  }
  const token = response.timeStampToken;
  if (!token || token.contentType !== SIGNED_DATA)
    throw new TimestampTokenError("the response holds no time-stamp token");
  try {
    return new pkijs.SignedData({ schema: token.content });
  } catch (error) {
    throw new TimestampTokenError(`the token is not CMS SignedData: ${(error as Error).message}`);
  }
}

function tstInfoOf(signed: pkijs.SignedData): pkijs.TSTInfo {
  const content = signed.encapContentInfo;
  if (content.eContentType !== TST_INFO || !content.eContent)
    throw new TimestampTokenError("the token's content is not a TSTInfo");
  try {
    return pkijs.TSTInfo.fromBER(content.eContent.getValue());
  } catch (error) {
    throw new TimestampTokenError(`the token's TSTInfo is malformed: ${(error as Error).message}`);
  }
}

/** What a granted response holds (its status, content type and TSTInfo checked; no signature). */
export function readTimestampResponse(der: Uint8Array): TimestampInfo {
  const tst = tstInfoOf(signedDataOf(parseResponse(der)));
  if (tst.messageImprint.hashAlgorithm.algorithmId !== SHA256)
    throw new TimestampTokenError(
      `the token's imprint is not SHA-256 (${tst.messageImprint.hashAlgorithm.algorithmId})`,
    );
  return {
    genTime: tst.genTime,
    serial: hex(tst.serialNumber.valueBlock.valueHexView),
    policy: tst.policy,
    nonce: tst.nonce ? tst.nonce.toBigInt() : null,
    digest: new Uint8Array(tst.messageImprint.hashedMessage.valueBlock.valueHexView),
  };
}

/** A granted response over exactly this digest (and this nonce, when one was sent): else throws. */
export function checkTimestampResponse(
  der: Uint8Array,
  expected: { digest: Uint8Array; nonce?: bigint },
): TimestampInfo {
  const info = readTimestampResponse(der);
  if (!equalBytes(info.digest, expected.digest))
    throw new TimestampTokenError(
      `the token's message imprint ${hex(info.digest)} is not ${hex(expected.digest)}`,
    );
  if (expected.nonce !== undefined && info.nonce !== expected.nonce)
    throw new TimestampTokenError("the token's nonce is not the request's");
  return info;
}

/** PEM text (one or more certificates) or DER bytes of certificates. */
export function parseCertificates(input: string | Uint8Array): pkijs.Certificate[] {
  const blocks =
    typeof input === "string"
      ? [...input.matchAll(/-----BEGIN CERTIFICATE-----([\s\S]*?)-----END CERTIFICATE-----/g)].map(
          (m) => new Uint8Array(Buffer.from((m[1] ?? "").replace(/\s+/g, ""), "base64")),
        )
      : [input];
  if (blocks.length === 0) throw new TimestampTokenError("no certificate in the PEM text");
  return blocks.map((der) => {
    try {
      return pkijs.Certificate.fromBER(view(der));
    } catch (error) {
      throw new TimestampTokenError(`not an X.509 certificate: ${(error as Error).message}`);
    }
  });
}

/**
 * Verifies a response as RFC 3161 asks: granted, its imprint the SHA-256 of `data`, signed by a
 * certificate that chains to one of `trusted` (checked at genTime) and whose extended key usage
 * is critical and only timeStamping. Throws TimestampTokenError naming what failed.
 */
export async function verifyTimestampResponse(
  der: Uint8Array,
  data: Uint8Array,
  trusted: readonly pkijs.Certificate[],
): Promise<TimestampInfo> {
  const signed = signedDataOf(parseResponse(der));
  const info = readTimestampResponse(der);
  let result: pkijs.SignedDataVerifyResult;
  try {
    result = (await signed.verify({
      signer: 0,
      data: view(data),
      trustedCerts: [...trusted],
      checkChain: true,
      extendedMode: true,
    })) as pkijs.SignedDataVerifyResult;
  } catch (error) {
    throw new TimestampTokenError(`the token does not verify: ${(error as Error).message}`);
  }
  if (!result.signatureVerified) throw new TimestampTokenError("the token's signature does not verify");
  const eku = result.signerCertificate?.extensions?.find((e) => e.extnID === EXT_KEY_USAGE);
  const purposes = (eku?.parsedValue as pkijs.ExtKeyUsage | undefined)?.keyPurposes ?? [];
  if (!eku?.critical || purposes.length !== 1 || purposes[0] !== TIME_STAMPING)
    throw new TimestampTokenError(
      "the signer's certificate is not a TSA's (critical extendedKeyUsage timeStamping)",
    );
  return info;
}
