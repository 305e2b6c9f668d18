import { Hono } from "hono";
import { reportEnvelope } from "../lib/fixtures.js";
import { expectStatus, httpClient } from "../lib/http-client.js";
import { alternate, runLoad } from "../lib/load.js";
import { listen } from "../lib/stack.js";
import { medianOf } from "../lib/stats.js";

/**
 * What reading the body through `c.req.raw.body` (a stream: @hono/node-server then builds a full
 * WHATWG Request), or by async iteration over the IncomingMessage, costs against `c.req.text()`
 * (the server's fast path), on otherwise empty routes:
 *   tsx bench/profile/body-read.ts
 */
const app = new Hono();
app.post("/text", async (c) => c.json({ length: (await c.req.text()).length }, 201));
app.post("/stream", async (c) => {
  const reader = (c.req.raw.body as ReadableStream<Uint8Array>).getReader();
  const chunks: Uint8Array[] = [];
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
  }
  return c.json({ length: Buffer.concat(chunks).toString("utf8").length }, 201);
});
app.post("/incoming", async (c) => {
  // How read-body.ts reads on the Node server: async iteration over the IncomingMessage.
  const chunks: Uint8Array[] = [];
  for await (const chunk of (c.env as { incoming: AsyncIterable<Uint8Array> }).incoming) chunks.push(chunk);
  return c.json({ length: Buffer.concat(chunks).toString("utf8").length }, 201);
});
const server = await listen(app);
const client = httpClient(server.url, 1);
const body = JSON.stringify(reportEnvelope(1));
const side = (path: string) => () =>
  runLoad({
    total: 4000,
    concurrency: 1,
    op: () => client.send("POST", path, body).then((a) => expectStatus(a, 201)),
  });
await side("/text")();
await side("/stream")();
await side("/incoming")();
const rounds = await alternate(3, {
  text: side("/text"),
  stream: side("/stream"),
  incoming: side("/incoming"),
});
const text = medianOf(rounds.text);
const stream = medianOf(rounds.stream);
const incoming = medianOf(rounds.incoming);
process.stdout.write(
  `c.req.text(): p50 ${text.p50.toFixed(3)} ms, ${text.throughput.toFixed(0)} req/s\nc.req.raw.body stream: p50 ${stream.p50.toFixed(3)} ms, ${stream.throughput.toFixed(0)} req/s (+${((stream.p50 - text.p50) * 1000).toFixed(0)} µs)\nfor await over the IncomingMessage: p50 ${incoming.p50.toFixed(3)} ms, ${incoming.throughput.toFixed(0)} req/s (+${((incoming.p50 - text.p50) * 1000).toFixed(0)} µs)\n`,
);
client.close();
await server.close();
