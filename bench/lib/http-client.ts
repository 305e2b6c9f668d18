import { Agent, request } from "node:http";

export interface HttpAnswer {
  status: number;
  text: string;
}

export type Send = (
  method: string,
  path: string,
  body?: string,
  headers?: Record<string, string>,
) => Promise<HttpAnswer>;

/**
 * A keep-alive HTTP/1.1 client on node:http. It is lighter than fetch (undici), which matters
 * when the client, the server and the store share two cores; both sides of a ratio use it.
 */
export function httpClient(baseUrl: string, sockets = 16, timeoutMs = 30_000): { send: Send; close(): void } {
  const url = new URL(baseUrl);
  const agent = new Agent({ keepAlive: true, maxSockets: sockets });
  const send: Send = (method, path, body, headers = {}) =>
    new Promise((resolve, reject) => {
      const req = request(
        {
          agent,
          host: url.hostname,
          port: url.port,
          method,
          path,
          headers: {
            ...(body === undefined
              ? {}
              : { "content-type": "application/json", "content-length": Buffer.byteLength(body) }),
            ...headers,
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (chunk: Buffer) => chunks.push(chunk));
          res.on("end", () =>
            resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }),
          );
          res.on("error", reject);
        },
      );
      req.on("error", reject);
      req.setTimeout(timeoutMs, () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
      req.end(body);
    });
  return { send, close: () => agent.destroy() };
}

/** Throws unless the answer has one of the expected statuses: a benchmark of errors measures nothing. */
export function expectStatus(answer: HttpAnswer, ...statuses: number[]): HttpAnswer {
  if (!statuses.includes(answer.status)) {
    throw new Error(`expected ${statuses.join("/")}, got ${answer.status}: ${answer.text.slice(0, 300)}`);
  }
  return answer;
}
