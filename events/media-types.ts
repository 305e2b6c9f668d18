/**
 * The media types evidence commonly has and the file name extensions they go by, the first the
 * one a download is named with: a capture guesses a file's type from its name, and a download
 * names the bytes so that the reader's system opens them with the right program.
 */
const EXTENSIONS_OF: Record<string, readonly string[]> = {
  "text/html": ["html", "htm"],
  "text/plain": ["txt"],
  "text/csv": ["csv"],
  "application/pdf": ["pdf"],
  "image/jpeg": ["jpg", "jpeg"],
  "image/png": ["png"],
  "image/webp": ["webp"],
  "image/gif": ["gif"],
  "image/tiff": ["tif", "tiff"],
  "video/mp4": ["mp4"],
  "video/webm": ["webm"],
  "video/quicktime": ["mov"],
  "audio/mpeg": ["mp3"],
  "audio/ogg": ["ogg"],
  "audio/wav": ["wav"],
  "application/json": ["json"],
  "application/warc": ["warc"],
  "application/wacz": ["wacz"],
  "application/zip": ["zip"],
  "application/gzip": ["gz"],
};

const TYPE_OF: ReadonlyMap<string, string> = new Map(
  Object.entries(EXTENSIONS_OF).flatMap(([type, extensions]) => extensions.map((ext) => [ext, type])),
);

/** A file's media type by its name's extension (a `.warc.gz` is gzip'd), else `application/octet-stream`. */
export function mediaTypeOfFile(name: string): string {
  const ext = /\.([A-Za-z0-9]+)$/.exec(name)?.[1]?.toLowerCase() ?? "";
  return TYPE_OF.get(ext) ?? "application/octet-stream";
}

/** The name bytes of a media type download as: their SHA-256 and the type's extension (none if not listed). */
export function downloadName(sha256: string, mediaType: string): string {
  const essence = mediaType.split(";")[0]?.trim().toLowerCase() ?? "";
  const ext = Object.hasOwn(EXTENSIONS_OF, essence) ? EXTENSIONS_OF[essence]?.[0] : undefined;
  return ext ? `${sha256}.${ext}` : sha256;
}
