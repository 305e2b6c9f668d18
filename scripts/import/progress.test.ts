import { afterEach, describe, expect, it, vi } from "vitest";
import { startProgress } from "./progress.js";

const counts = { rows: 1436, events: 0, failed: 0, bytes: 0, size: 100_000, sent: 0 };

afterEach(() => vi.restoreAllMocks());

describe("the import's plain progress lines (off a terminal)", () => {
  it("say rows read and events stored, and no time left before anything is answered", () => {
    const lines: string[] = [];
    vi.spyOn(process.stderr, "write").mockImplementation((chunk) => lines.push(String(chunk)) > 0);
    const progress = startProgress("import a.csv", false, Date.now() - 3000);
    progress.update(counts);
    expect(lines).toEqual([
      "import a.csv: 1436 rows read, 0 events stored, 0 events/s, 0 failed, 0% of the file, ? left\n",
    ]);
  });

  it("given half the file answered in 3 s, then about 3 s left; and no line more often than every 2 s", () => {
    const lines: string[] = [];
    vi.spyOn(process.stderr, "write").mockImplementation((chunk) => lines.push(String(chunk)) > 0);
    const progress = startProgress("import a.csv", false, Date.now() - 3000);
    progress.update({ ...counts, events: 600, sent: 600, bytes: 50_000 });
    progress.update({ ...counts, events: 700, sent: 700, bytes: 60_000 });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /: 1436 rows read, 600 events stored, 200 events\/s, 0 failed, 50% of the file, 3s left\n$/,
    );
  });
});
