import { describe, expect, it } from "vitest";
import { WorldMap } from "./world-map.js";

describe("the world map", () => {
  it("given a contested and an uncontested incident at one place, then the contested mark is drawn over the other", async () => {
    const at = { lat: 48.72, lon: 37.56 };
    const svg = String(
      await WorldMap({
        points: [
          { incidentId: "contested-first", title: "Contested", contested: true, ...at },
          { incidentId: "plain-second", title: "Plain", contested: false, ...at },
        ],
      }),
    );
    const order = [...svg.matchAll(/data-incident="([^"]+)"/g)].map((m) => m[1]);
    expect(order).toEqual(["plain-second", "contested-first"]);
  });

  it("given three incidents at one place, then three marks around it, each its own", async () => {
    const at = { lat: 48.7305, lon: 37.5867 };
    const svg = String(
      await WorldMap({
        points: ["a", "b", "c"].map((id) => ({ incidentId: id, title: id, contested: false, ...at })),
      }),
    );
    const marks = [...svg.matchAll(/<circle cx="([^"]+)" cy="([^"]+)"/g)].map((m) => `${m[1]},${m[2]}`);
    expect(marks).toHaveLength(3);
    expect(new Set(marks).size).toBe(3);
    // Around the place, not far from it: within a mark's width of each other.
    const xs = marks.map((m) => Number(m.split(",")[0]));
    expect(Math.max(...xs) - Math.min(...xs)).toBeLessThan(12);
  });
});
