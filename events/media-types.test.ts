import { describe, expect, it } from "vitest";
import { downloadName, mediaTypeOfFile } from "./media-types.js";

const SHA = "a".repeat(64);

describe("media types and file names", () => {
  it("given a file's name, then its media type comes from its extension, whatever its case", () => {
    expect(mediaTypeOfFile("station.JPEG")).toBe("image/jpeg");
    expect(mediaTypeOfFile("crawl.warc")).toBe("application/warc");
    expect(mediaTypeOfFile("crawl.warc.gz")).toBe("application/gzip");
    expect(mediaTypeOfFile("notes")).toBe("application/octet-stream");
    expect(mediaTypeOfFile("report.constructor")).toBe("application/octet-stream");
  });

  it("given bytes of a media type, then they download as their hash with the type's first extension", () => {
    expect(downloadName(SHA, "image/jpeg")).toBe(`${SHA}.jpg`);
    expect(downloadName(SHA, "text/html; charset=utf-8")).toBe(`${SHA}.html`);
    expect(downloadName(SHA, "Application/GZIP")).toBe(`${SHA}.gz`);
    expect(downloadName(SHA, "application/x-unknown")).toBe(SHA);
    expect(downloadName(SHA, "__proto__/x")).toBe(SHA);
  });
});
