import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { NoteVerificationError } from "../../events/transparency/errors.js";
import { ed25519NoteVerifier, parseVerifierKey, verifyNote } from "../../events/transparency/note.js";

// The example of c2sp.org/signed-note (see the README beside the fixture).
const dir = join(import.meta.dirname, "../fixtures/transparency/signed-note");
const vkey = readFileSync(join(dir, "example.vkey"), "utf8").trim();
const note = readFileSync(join(dir, "example.note"), "utf8");

describe("the signed-note specification's example", () => {
  it("given its vkey, then the key id and name are those of the spec", () => {
    const key = parseVerifierKey(vkey);
    expect(key.name).toBe("example.com/foo");
    expect(Buffer.from(key.keyId).toString("hex")).toBe("530d903a");
    expect(key.type).toBe(1);
  });

  it("given its signed note, then the vkey verifies it", () => {
    const { text, verifiedBy } = verifyNote(note, [vkey]);
    expect(text).toBe("This is an example message.\n");
    expect(verifiedBy).toEqual(["example.com/foo"]);
  });

  it("given one changed character of the text, then the note is refused", () => {
    expect(() =>
      verifyNote(note.replace("example message", "example messagE"), [ed25519NoteVerifier(vkey)]),
    ).toThrow(NoteVerificationError);
  });
});
