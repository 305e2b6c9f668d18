import { Writable } from "node:stream";

/**
 * A stand-in for what the Lambda Node.js runtime provides to response-streaming functions,
 * written from AWS's documentation ("Response streaming for Lambda functions", "Writing
 * response streaming-enabled Lambda functions") and the runtime interface client's published
 * behaviour — not copied from it:
 *
 * - the global `awslambda.streamifyResponse(handler)` marks a handler of
 *   `(event, responseStream, context)` as streaming; the runtime then calls it with a writable
 *   response stream and takes the bytes written to it as they come;
 * - `awslambda.HttpResponseStream.from(stream, { statusCode, headers, cookies })` sets the
 *   stream's content type to `application/vnd.awslambda.http-integration-response` and, before
 *   the first byte of body, writes the JSON metadata prelude and then 8 NUL bytes; a function
 *   URL reads the status and headers from the prelude and passes on what follows as the body.
 *
 * `invokeStreaming` plays the runtime and the function URL: it calls the handler, records every
 * write as it reaches the stream, and splits the prelude from the body chunks.
 */
const STREAMING = Symbol.for("aws.lambda.runtime.handler.streaming");
const PRELUDE_TYPE = "application/vnd.awslambda.http-integration-response";
const DELIMITER = 8;

class ResponseStream extends Writable {
  contentType = "application/octet-stream";
  /** Set by HttpResponseStream.from: runs once, before the first write reaches the wire. */
  _onBeforeFirstWrite?: (write: (chunk: string | Uint8Array) => void) => void;
  readonly wire: Buffer[] = [];
  private started = false;

  setContentType(type: string) {
    if (this.started) throw new Error("the content type must be set before the first write");
    this.contentType = type;
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null) => void) {
    if (!this.started) {
      this.started = true;
      this._onBeforeFirstWrite?.((c) => this.wire.push(Buffer.from(c)));
    }
    this.wire.push(Buffer.from(chunk));
    // The runtime sends each write on as it comes; a tick keeps writes apart as on the wire.
    setImmediate(() => done());
  }
}

type StreamingHandler = (event: unknown, stream: ResponseStream, context: unknown) => Promise<void>;

export function installLambdaStreamingGlobals(): void {
  (globalThis as { awslambda?: unknown }).awslambda = {
    streamifyResponse(handler: StreamingHandler) {
      (handler as unknown as Record<symbol, string>)[STREAMING] = "response";
      return handler;
    },
    HttpResponseStream: {
      from(stream: ResponseStream, prelude: Record<string, unknown>) {
        stream.setContentType(PRELUDE_TYPE);
        const json = JSON.stringify(prelude);
        stream._onBeforeFirstWrite = (write) => {
          write(json);
          write(new Uint8Array(DELIMITER));
        };
        return stream;
      },
    },
  };
}

export interface StreamedAnswer {
  statusCode: number;
  headers: Record<string, string>;
  /** The body as the writes delivered it, one buffer a write. */
  chunks: Buffer[];
  body: Buffer;
}

export async function invokeStreaming(handler: unknown, event: unknown): Promise<StreamedAnswer> {
  const fn = handler as StreamingHandler & Record<symbol, string>;
  if (fn[STREAMING] !== "response")
    throw new Error("the handler was not wrapped by awslambda.streamifyResponse");
  const stream = new ResponseStream();
  const finished = new Promise<void>((resolve, reject) => {
    stream.on("finish", resolve);
    stream.on("error", reject);
  });
  await fn(event, stream, { awsRequestId: "stand-in", getRemainingTimeInMillis: () => 900_000 });
  await finished;
  if (stream.contentType !== PRELUDE_TYPE)
    throw new Error(`no HTTP prelude (content type ${stream.contentType})`);
  // The prelude is one write, the delimiter the next; the body is every write after them.
  const [prelude, delimiter, ...chunks] = stream.wire;
  if (!prelude || !delimiter || delimiter.length !== DELIMITER || delimiter.some((b) => b !== 0))
    throw new Error("the prelude is not followed by 8 NUL bytes");
  const meta = JSON.parse(prelude.toString("utf8")) as {
    statusCode: number;
    headers?: Record<string, string>;
  };
  return { statusCode: meta.statusCode, headers: meta.headers ?? {}, chunks, body: Buffer.concat(chunks) };
}
