import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import cliProgress from "cli-progress";

/** The file's SHA-256, read as a stream. */
export async function hashFile(file: string): Promise<string> {
  const hash = createHash("sha256");
  await pipeline(createReadStream(file), hash);
  return hash.digest("hex");
}

/** Progress on a terminal as a bar (cli-progress); otherwise a plain line every tenth. */
export function progress(label: string, total: number, out: NodeJS.WriteStream = process.stderr) {
  if (out.isTTY) {
    const bar = new cliProgress.SingleBar(
      { format: `${label} [{bar}] {percentage}% {value}/{total} bytes`, stream: out },
      cliProgress.Presets.shades_classic,
    );
    bar.start(total, 0);
    return { tick: (done: number) => bar.update(done), end: () => bar.stop() };
  }
  let shown = -1;
  return {
    tick: (done: number) => {
      const tenth = total === 0 ? 10 : Math.floor((done / total) * 10);
      if (tenth > shown) {
        shown = tenth;
        out.write(`${label}: ${tenth * 10}% (${done} of ${total} bytes)\n`);
      }
    },
    end: () => undefined,
  };
}

/**
 * Sends the file as the body of one request (with its Content-Length: S3 takes no chunked
 * PUT), streamed from disk, and returns the answer. Node's http, not fetch: fetch streams bodies
 * chunked and will not send a Content-Length of its own choosing.
 */
export function sendFile(
  url: URL,
  method: "POST" | "PUT",
  headers: Record<string, string>,
  file: string,
  size: number,
  onProgress: (sent: number) => void,
): Promise<{ status: number; text: string }> {
  const request = url.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers: { ...headers, "content-length": String(size) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () =>
        resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }),
      );
      res.on("error", reject);
    });
    req.on("error", reject);
    let sent = 0;
    const count = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        sent += chunk.byteLength;
        onProgress(sent);
        done(null, chunk);
      },
    });
    pipeline(createReadStream(file), count, req).catch(reject);
  });
}
