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
});
