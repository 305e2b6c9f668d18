import { randomUUID } from "node:crypto";
import { createReadStream } from "node:fs";
import { link, mkdir, open, readdir, readFile, rename, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { Readable } from "node:stream";
import {
  type Access,
  type BlobInfo,
  type BlobStore,
  type ByteRange,
  Intake,
  keepStaged,
  type PutOptions,
  type PutResult,
  SHA256_HEX,
  type StagedBlob,
} from "./blob-store.js";

const TEMP_PREFIX = ".incoming-";
const WRITE_BATCH = 1024 * 1024;

interface Meta {
  mediaType: string;
  size: number;
  access?: Access;
}

/** What a restriction's marker file says, to whoever finds it beside the bytes. */
const RESTRICTED_MARKER =
  "Only restricted-readers may read the bytes beside this file: keep this file with them, in every copy.\n";
/**
 * Evidence in a directory (DATA_DIR/evidence): each blob a file named by its SHA-256, its
 * media type beside it in `<sha256>.json`, and `<sha256>.restricted` once it is restricted. Bytes are written to a temporary name in
 * the same directory, fsync'd, then linked to their real name (link fails if the name is taken,
 * so of two uploads of the same bytes exactly one creates it): a crash leaves at most a
 * temporary file, removed at the next start.
 */
export class LocalBlobStore implements BlobStore {
  private constructor(readonly dir: string) {}

  /** Opens (creating) the directory and removes what a crash left half-written. */
  static async open(dir: string): Promise<LocalBlobStore> {
    await mkdir(dir, { recursive: true });
    for (const name of await readdir(dir)) {
      if (name.startsWith(TEMP_PREFIX)) await rm(join(dir, name), { force: true });
    }
    return new LocalBlobStore(dir);
  }

  private path(sha256: string): string {
    if (!SHA256_HEX.test(sha256)) throw new RangeError(`not a SHA-256: ${sha256}`);
    return join(this.dir, sha256);
  }

  put(body: AsyncIterable<Uint8Array>, options: PutOptions): Promise<PutResult> {
    return keepStaged(this.stage(body, options));
  }

  async stage(body: AsyncIterable<Uint8Array>, options: PutOptions): Promise<StagedBlob> {
    const temp = join(this.dir, `${TEMP_PREFIX}${randomUUID()}`);
    const file = await open(temp, "wx");
    const intake = new Intake(options);
    // The socket's small chunks go out in one write per WRITE_BATCH, one write in flight while
    // the next batch is read: at most two batches held, and the disk and the socket overlap.
    let pending: Uint8Array[] = [];
    let pendingBytes = 0;
    let writing: Promise<unknown> = Promise.resolve();
    const flush = async () => {
      await writing;
      if (pendingBytes === 0) return;
      const batch = pending;
      pending = [];
      pendingBytes = 0;
      writing = file.writev(batch);
      // Its failure is met at the next flush (or the last one).
      writing.catch(() => undefined);
    };
    let sha256: string;
    try {
      try {
        for await (const chunk of body) {
          intake.take(chunk);
          pending.push(chunk);
          pendingBytes += chunk.byteLength;
          if (pendingBytes >= WRITE_BATCH) await flush();
        }
        await flush();
        await writing;
        await file.sync();
      } finally {
        await writing.catch(() => undefined);
        await file.close();
      }
      sha256 = intake.finish();
    } catch (error) {
      await rm(temp, { force: true });
      throw error;
    }
    const { size } = intake;
    const discard = () => rm(temp, { force: true });
    const keep = async (access = options.access): Promise<PutResult> => {
      const real = this.path(sha256);
      // New bytes asked to be restricted are so before they are under their name; bytes held
      // already keep their access (an upload never hides evidence a capture made public).
      if (access === "restricted" && !(await exists(real))) await this.markRestricted(sha256);
      // The media type first: a blob under its real name always has it beside it.
      if (!(await exists(`${real}.json`)))
        await this.writeMeta(sha256, { mediaType: options.mediaType, size });
      let created = true;
      try {
        await link(temp, real);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
        created = false;
      }
      if (created) await syncDir(this.dir);
      await discard();
      const kept = await this.meta(sha256);
      return { sha256, size, mediaType: kept?.mediaType ?? options.mediaType, created };
    };
    return { sha256, size, mediaType: options.mediaType, keep, discard };
  }

  async head(sha256: string): Promise<BlobInfo | null> {
    if (!SHA256_HEX.test(sha256)) return null;
    let size: number;
    let keptAt: string;
    try {
      const file = await stat(this.path(sha256));
      size = file.size;
      keptAt = file.mtime.toISOString();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
      throw error;
    }
    const meta = await this.meta(sha256);
    const restricted = meta?.access === "restricted" || (await exists(`${this.path(sha256)}.restricted`));
    return {
      sha256,
      size,
      mediaType: meta?.mediaType ?? "application/octet-stream",
      access: restricted ? "restricted" : (meta?.access ?? null),
      keptAt,
    };
  }

  async read(sha256: string, range?: ByteRange): Promise<ReadableStream<Uint8Array>> {
    const stream = createReadStream(this.path(sha256), range ? { start: range.start, end: range.end } : {});
    return Readable.toWeb(stream) as ReadableStream<Uint8Array>;
  }

  /** Only ever restricts: a public capture leaves the bytes as they are. */
  async setAccess(sha256: string, access: Access): Promise<void> {
    if (access === "restricted" && (await this.head(sha256))) await this.markRestricted(sha256);
  }

  /**
   * `<sha256>.restricted`, made once and never removed: two uploads of the same bytes at once,
   * one restricted, cannot undo each other's restriction as two rewrites of the metadata could.
   */
  private async markRestricted(sha256: string): Promise<void> {
    try {
      // Not empty: a copy or backup that leaves out empty files must not lose a restriction.
      const marker = await open(`${this.path(sha256)}.restricted`, "wx");
      await marker.writeFile(RESTRICTED_MARKER);
      await marker.sync();
      await marker.close();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      return;
    }
    await syncDir(this.dir);
  }

  async directUpload(): Promise<null> {
    return null;
  }

  async readUrl(): Promise<null> {
    return null;
  }

  private async meta(sha256: string): Promise<Meta | null> {
    try {
      return JSON.parse(await readFile(`${this.path(sha256)}.json`, "utf8")) as Meta;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
      throw error;
    }
  }

  /** Atomically, as the bytes: a temporary file, fsync'd, renamed over the old one. */
  private async writeMeta(sha256: string, meta: Meta): Promise<void> {
    const temp = join(this.dir, `${TEMP_PREFIX}${randomUUID()}.json`);
    const file = await open(temp, "wx");
    try {
      await file.writeFile(JSON.stringify(meta));
      await file.sync();
    } finally {
      await file.close();
    }
    await rename(temp, `${this.path(sha256)}.json`);
    await syncDir(this.dir);
  }
}

/** A rename or link is durable only once its directory is: fsync the directory too. */
async function syncDir(dir: string): Promise<void> {
  const handle = await open(dir, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}
