import { execFile } from "node:child_process";
import { createHash, webcrypto } from "node:crypto";

type CryptoKey = webcrypto.CryptoKey;

import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import * as asn1js from "asn1js";
import * as pkijs from "pkijs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseCertificates, verifyTimestampResponse } from "../../events/transparency/timestamp-token.js";

const run = promisify(execFile);
const BODY = "localhost/incident-ledger\n1\nq0bGXkVv5pVDhVvwEdsEH3ZgxVl9RAsM3VpBcn9WvAo=\n";
let dir: string;
const openssl = (args: string[]) => run("openssl", args, { cwd: dir });
const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"];

/** A certificate under the test CA with these extensions, and its key (for pkijs to sign with). */
async function signer(name: string, extensions: string) {
  await writeFile(join(dir, `${name}.ext`), extensions);
  await openssl(["req", ...ec, "-keyout", `${name}.key`, "-out", `${name}.csr`, "-subj", `/CN=${name}`]);
  await openssl([
    "x509",
    "-req",
    "-in",
    `${name}.csr`,
    "-CA",
    "ca.pem",
    "-CAkey",
    "ca.key",
    "-set_serial",
    String(name.length + 10),
    "-days",
    "2",
    "-extfile",
    `${name}.ext`,
    "-out",
    `${name}.pem`,
  ]);
  await openssl([
    "pkcs8",
    "-topk8",
    "-nocrypt",
    "-in",
    `${name}.key`,
    "-outform",
    "DER",
    "-out",
    `${name}.p8`,
  ]);
  const cert = parseCertificates(await readFile(join(dir, `${name}.pem`), "utf8"))[0] as pkijs.Certificate;
  const key = await webcrypto.subtle.importKey(
    "pkcs8",
    await readFile(join(dir, `${name}.p8`)),
    { name: "ECDSA", namedCurve: "P-256" },
    false,
    ["sign"],
  );
  return { cert, key: key as CryptoKey };
}

/** A granted TimeStampResp over BODY, built and signed by pkijs with this certificate's key. */
async function token(by: { cert: pkijs.Certificate; key: CryptoKey }): Promise<Uint8Array> {
  const digest = new Uint8Array(createHash("sha256").update(BODY).digest());
  const tst = new pkijs.TSTInfo({
    version: 1,
    policy: "1.3.6.1.4.1.99999.1",
    messageImprint: new pkijs.MessageImprint({
      hashAlgorithm: new pkijs.AlgorithmIdentifier({ algorithmId: "2.16.840.1.101.3.4.2.1" }),
      hashedMessage: new asn1js.OctetString({ valueHex: digest.buffer }),
    }),
    serialNumber: asn1js.Integer.fromBigInt(7n),
    genTime: new Date(),
  });
  const signed = new pkijs.SignedData({
    version: 3,
    encapContentInfo: new pkijs.EncapsulatedContentInfo({
      eContentType: "1.2.840.113549.1.9.16.1.4",
      eContent: new asn1js.OctetString({ valueHex: tst.toSchema().toBER() }),
    }),
    signerInfos: [
      new pkijs.SignerInfo({
        version: 1,
        sid: new pkijs.IssuerAndSerialNumber({ issuer: by.cert.issuer, serialNumber: by.cert.serialNumber }),
      }),
    ],
    certificates: [by.cert],
  });
  await signed.sign(by.key, 0, "SHA-256");
  const response = new pkijs.TimeStampResp({
    status: new pkijs.PKIStatusInfo({ status: pkijs.PKIStatus.granted }),
    timeStampToken: new pkijs.ContentInfo({
      contentType: pkijs.ContentInfo.SIGNED_DATA,
      content: signed.toSchema(true),
    }),
  });
  return new Uint8Array(response.toSchema().toBER());
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "tsa-eku-"));
  await openssl([
    "req",
    "-x509",
    ...ec,
    "-keyout",
    "ca.key",
    "-out",
    "ca.pem",
    "-days",
    "2",
    "-subj",
    "/CN=EKU Test CA",
  ]);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe("verifyTimestampResponse (the verifier's check of a token)", () => {
  it("accepts a token from a certificate with critical extendedKeyUsage timeStamping, and refuses one without it", async () => {
    const ca = parseCertificates(await readFile(join(dir, "ca.pem"), "utf8"));
    const data = new TextEncoder().encode(BODY);
    const tsa = await signer(
      "tsa",
      "basicConstraints = critical, CA:FALSE\nextendedKeyUsage = critical, timeStamping\n",
    );
    await expect(verifyTimestampResponse(await token(tsa), data, ca)).resolves.toMatchObject({
      serial: "07",
    });

    const web = await signer("web", "basicConstraints = critical, CA:FALSE\nextendedKeyUsage = serverAuth\n");
    await expect(verifyTimestampResponse(await token(web), data, ca)).rejects.toThrow(/not a TSA's/);
    const lax = await signer(
      "lax",
      "basicConstraints = critical, CA:FALSE\nextendedKeyUsage = timeStamping\n",
    );
    await expect(verifyTimestampResponse(await token(lax), data, ca)).rejects.toThrow(/not a TSA's/);
    // And the imprint: the same token over other bytes.
    await expect(
      verifyTimestampResponse(await token(tsa), new TextEncoder().encode(`${BODY}x`), ca),
    ).rejects.toThrow(/TSTInfo verification is failed/);
  });
});
