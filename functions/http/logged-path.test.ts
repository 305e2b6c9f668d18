import { describe, expect, it } from "vitest";
import { loggedPath } from "./logged-path.js";

describe("loggedPath", () => {
  it("keeps a path, but never the name a source route was asked for", () => {
    expect(loggedPath("/sources/Halvard Strimpkin")).toBe("/sources/{name}");
    expect(loggedPath("/source/Halvard%20Strimpkin")).toBe("/source/{name}");
    expect(loggedPath("/sources/")).toBe("/sources/{name}");
    expect(loggedPath("/Sources/Petro Ivanenko")).toBe("/Sources/{name}");
    expect(loggedPath("/sources/Anna/Maria")).toBe("/sources/{name}");
    // Mistyped ways to the same route are 404s, logged without the name too.
    expect(loggedPath("//sources/Anna Maria")).toBe("//sources/{name}");
    expect(loggedPath("/sources%2FAnna Maria")).toBe("/sources/{name}");
    expect(loggedPath("/%2Fsources/Anna Maria")).toBe("/%2Fsources/{name}");
    expect(loggedPath("/en/source/Anna Maria")).toBe("/en/source/{name}");
    expect(loggedPath("/incidents/kramatorsk-station-2022-04-08/events")).toBe(
      "/incidents/kramatorsk-station-2022-04-08/events",
    );
    expect(loggedPath("/view/sources-of-doubt")).toBe("/view/sources-of-doubt");
  });
});
