/**
 * The JSON metadata Bellingcat's auto-archiver writes for one archived URL (its `Metadata`
 * dataclass as dataclass_json serialises it): `{ status, metadata: { url, title?, timestamp?,
 * _processed_at?, … }, media: [ { filename, key?, urls: [...], properties: { hash:
 * "SHA-256:<hex>", … }, _mimetype? } ] }`. Media may hold further media in their properties
 * (screenshots, thumbnails), which count too.
 */
export interface ArchiverFacts {
  url?: string;
  title?: string;
  /** When the archiver processed the URL (`_processed_at`), else the post's own `timestamp`. */
  capturedAt?: string;
  /** Where the archiver stored this file (its media's `urls`, http(s) only). */
  storedAt: string[];
  mimetype?: string;
}

interface Media {
  filename?: unknown;
  urls?: unknown;
  properties?: Record<string, unknown>;
  _mimetype?: unknown;
}

const isMedia = (value: unknown): value is Media =>
  typeof value === "object" && value !== null && "filename" in value && "properties" in value;

function allMedia(media: readonly unknown[]): Media[] {
  const out: Media[] = [];
  for (const m of media) {
    if (!isMedia(m)) continue;
    out.push(m);
    for (const prop of Object.values(m.properties ?? {})) {
      if (isMedia(prop)) out.push(prop);
      if (Array.isArray(prop)) out.push(...allMedia(prop));
    }
  }
  return out;
}

const iso = (value: unknown): string | undefined => {
  if (typeof value !== "string" && typeof value !== "number") return undefined;
  const time =
    typeof value === "number"
      ? value * 1000
      : Date.parse(/[zZ]|[+-]\d\d:?\d\d$/.test(value) ? value : `${value}Z`);
  return Number.isFinite(time) ? new Date(time).toISOString() : undefined;
};

/**
 * Checks that the metadata names this file (a media item whose hash is `SHA-256:<its hash>`)
 * and returns what it says of it. Throws naming the hashes it does hold otherwise.
 */
export function archiverFacts(json: unknown, sha256: string): ArchiverFacts {
  const root = (json ?? {}) as { metadata?: Record<string, unknown>; media?: unknown };
  if (typeof root !== "object" || !Array.isArray(root.media) || typeof root.metadata !== "object") {
    throw new Error("the metadata is not auto-archiver JSON: it needs `metadata` and `media`");
  }
  const media = allMedia(root.media);
  const hashes = media.map((m) => String(m.properties?.hash ?? "")).filter((h) => h !== "");
  const match = media.find((m) => {
    const hash = String(m.properties?.hash ?? "");
    const [algo, hex] = hash.includes(":") ? hash.split(":", 2) : ["", hash];
    return /^sha-?256$/i.test(algo ?? "") && hex?.toLowerCase() === sha256;
  });
  if (!match) {
    throw new Error(
      `the metadata names no file with SHA-256 ${sha256}` +
        (hashes.length > 0 ? ` (it names ${hashes.join(", ")})` : " (it holds no hashes)"),
    );
  }
  const meta = root.metadata ?? {};
  const urls = Array.isArray(match.urls) ? match.urls.filter((u): u is string => typeof u === "string") : [];
  const capturedAt = iso(meta._processed_at) ?? iso(meta.timestamp);
  return {
    ...(typeof meta.url === "string" ? { url: meta.url } : {}),
    ...(typeof meta.title === "string" && meta.title.trim() ? { title: meta.title } : {}),
    ...(capturedAt ? { capturedAt } : {}),
    storedAt: urls.filter((u) => /^https?:\/\//.test(u)),
    ...(typeof match._mimetype === "string" ? { mimetype: match._mimetype } : {}),
  };
}
