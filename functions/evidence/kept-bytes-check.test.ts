import { createHash } from "node:crypto";
import { mkdtempSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { KeptBytesCheck } from "./blob-store.js";
import { LocalBlobStore } from "./local-blob-store.js";

const dir = mkdtempSync(join(tmpdir(), "kept-bytes-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("KeptBytesCheck", () => {
  it("given bytes kept as they were, then they pass, and a check holds until they are written again", async () => {
    const store = await LocalBlobStore.open(dir);
    const bytes = Buffer.from("<html>the page, as captured</html>");
    const sha256 = createHash("sha256").update(bytes).digest("hex");
    const body = (async function* () {
      yield bytes;
    })();
    await store.put(body, { mediaType: "text/html", max: 1024, sha256, size: bytes.length });
    const check = new KeptBytesCheck(store);
    const info = async () => (await store.head(sha256)) ?? expect.unreachable("held");
    await expect(check.check(await info())).resolves.toBeUndefined();

    // Altered in place, its time put back: the earlier check still holds (nothing is read again)…
    const file = join(dir, sha256);
    const { atime, mtime } = statSync(file);
    writeFileSync(file, "<html>THE PAGE, AS CAPTURED</html>");
    utimesSync(file, atime, mtime);
    await expect(check.check(await info())).resolves.toBeUndefined();
    // …and once the bytes' time says they were written, they are read and refused.
    utimesSync(file, atime, new Date(mtime.getTime() + 1000));
    await expect(check.check(await info())).rejects.toMatchObject({
      name: "EvidenceAlteredError",
      status: 500,
    });
    // A fresh check (another process) reads them whatever their time.
    utimesSync(file, atime, mtime);
    await expect(new KeptBytesCheck(store).check(await info())).rejects.toMatchObject({ status: 500 });
  });
});
