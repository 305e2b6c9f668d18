import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { WARCRecord, WARCSerializer } from "warcio";
import { mainResponse, PayloadDigestMismatch } from "./warc.js";

const BODY = "<html>Kramatorsk station</html>";
/** The body as a server sends it chunked: one chunk of its length, then the last. */
const CHUNKED = `${BODY.length.toString(16)}\r\n${BODY}\r\n0\r\n\r\n`;
const sha256 = (text: string) => `sha256:${createHash("sha256").update(text).digest("hex")}`;

async function* once(bytes: Uint8Array) {
  yield bytes;
}

/** A WARC of one response whose stored payload is `stored`, declaring `declared` as its payload digest. */
async function warc(
  stored: string,
  declared: string,
  headers: Record<string, string> = {},
  url = "https://news.example.org/kramatorsk",
): Promise<Uint8Array> {
  const record = await WARCRecord.create(
    {
      url,
      date: "2022-04-08T18:00:00Z",
      type: "response",
      warcVersion: "WARC/1.1",
      httpHeaders: { "Content-Type": "text/html", ...headers },
      warcHeaders: { "WARC-Payload-Digest": declared },
    },
    once(new TextEncoder().encode(stored)),
  );
  return WARCSerializer.serialize(record);
}

describe("the main response of a WARC", () => {
  it("given a digest of its payload as stored, records that digest", async () => {
    const facts = await mainResponse(once(await warc(BODY, sha256(BODY))));
    expect(facts).toMatchObject({
      payloadDigest: sha256(BODY),
      targetUri: "https://news.example.org/kramatorsk",
    });
  });

  it("given a chunked payload, accepts a digest of it as stored or with the chunking removed", async () => {
    const chunked = { "Transfer-Encoding": "chunked" };
    expect((await mainResponse(once(await warc(CHUNKED, sha256(CHUNKED), chunked)))).payloadDigest).toBe(
      sha256(CHUNKED),
    );
    expect((await mainResponse(once(await warc(CHUNKED, sha256(BODY), chunked))))?.payloadDigest).toBe(
      sha256(BODY),
    );
  });

  it("given a chunked payload with bytes after its last chunk, read in small pieces, hashes all of it as stored", async () => {
    const stored = `${CHUNKED}bytes after the last chunk`;
    const bytes = await warc(stored, sha256(stored), { "Transfer-Encoding": "chunked" });
    async function* pieces() {
      for (let i = 0; i < bytes.length; i += 7) yield bytes.subarray(i, i + 7);
    }
    expect((await mainResponse(pieces()))?.payloadDigest).toBe(sha256(stored));
  });

  it("given a digest its payload does not hash to, throws naming both", async () => {
    const wrong = sha256("another page");
    const thrown = await mainResponse(once(await warc(BODY, wrong))).catch((e) => e);
    expect(thrown).toBeInstanceOf(PayloadDigestMismatch);
    expect(thrown.message).toContain(
      `declares WARC-Payload-Digest ${wrong}, but its payload hashes to ${sha256(BODY)}`,
    );
  });

  it("checks every other record's digest too, listing a damaged one without refusing the capture's own", async () => {
    const damaged = await warc(BODY, sha256("another page"), {}, "https://news.example.org/other");
    const page = await warc(BODY, sha256(BODY));
    const both = Buffer.concat([damaged, page]);
    const facts = await mainResponse(once(both), "https://news.example.org/kramatorsk");
    expect(facts.payloadDigest).toBe(sha256(BODY));
    expect(facts.others?.checked).toBe(1);
    expect(facts.others?.damaged.map((d) => d.message)).toEqual([
      `the record of https://news.example.org/other declares WARC-Payload-Digest ${sha256("another page")}, but its payload hashes to ${sha256(BODY)}`,
    ]);
    // Without a page asked for, the first response is the capture's, and its digest is checked.
    expect(await mainResponse(once(both)).catch((e) => e)).toBeInstanceOf(PayloadDigestMismatch);
  });

  it("given the page asked for after another, the first becomes one of the others, checked", async () => {
    const first = await warc(BODY, sha256(BODY), {}, "https://news.example.org/first");
    const page = await warc("<html>the page</html>", sha256("<html>the page</html>"));
    const facts = await mainResponse(
      once(Buffer.concat([first, page])),
      "https://news.example.org/kramatorsk",
    );
    expect(facts.targetUri).toBe("https://news.example.org/kramatorsk");
    expect(facts.others).toEqual({ checked: 1, damaged: [] });
  });

  it("given a page no response is of, says so and which pages they are of", async () => {
    const first = await warc(BODY, sha256(BODY), {}, "https://news.example.org/first");
    const page = await warc("<html>the page</html>", sha256("<html>the page</html>"));
    const facts = await mainResponse(
      once(Buffer.concat([first, page])),
      "https://news.example.org/elsewhere",
    );
    expect(facts.unmatched).toEqual({
      uri: "https://news.example.org/elsewhere",
      targets: ["https://news.example.org/first", "https://news.example.org/kramatorsk"],
      responses: 2,
    });
    expect((await mainResponse(once(page), "https://news.example.org/kramatorsk")).unmatched).toBeUndefined();
    expect((await mainResponse(once(page))).unmatched).toBeUndefined();
  });

  it("does not check a revisit record's digest: it names the payload revisited, not its own", async () => {
    const revisit = await WARCSerializer.serialize(
      await WARCRecord.create(
        {
          url: "https://news.example.org/kramatorsk",
          date: "2022-04-09T18:00:00Z",
          type: "revisit",
          warcVersion: "WARC/1.1",
          warcHeaders: { "WARC-Payload-Digest": sha256(BODY) },
        },
        once(new Uint8Array()),
      ),
    );
    const facts = await mainResponse(once(Buffer.concat([await warc(BODY, sha256(BODY)), revisit])));
    expect(facts.others).toEqual({ checked: 0, damaged: [] });
  });

  it("given a digest it cannot check, records the payload's SHA-256 and says why", async () => {
    const facts = await mainResponse(once(await warc(BODY, "blake3:abcdef")));
    expect(facts?.payloadDigest).toBe(sha256(BODY));
    expect(facts?.note).toContain("blake3:abcdef was not checked");
  });
});
