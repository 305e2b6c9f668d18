import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";

/** The headers and problem document of a request refused before any route sees it. */
function refusal(status: number, message: string, path: string, detail: string) {
  const body = JSON.stringify({
    type: "/docs#problem-malformed-request",
    title: "Malformed request",
    status,
    detail,
    errors: [{ path, message }],
  });
  const headers = {
    "Content-Type": "application/problem+json",
    "Content-Length": String(Buffer.byteLength(body)),
    "X-Content-Type-Options": "nosniff",
    Connection: "close",
  };
  return { headers, body };
}

/**
 * What Node's HTTP parser refuses before any route sees the request (a header with a control
 * character, a malformed request line, headers too large) gets a problem document, as every
 * other refusal does, instead of Node's bare `400` without a body. For `server.on("clientError")`.
 * In AWS the HTTP API's front end refuses such requests itself, before a Lambda is invoked.
 */
export function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  // Only the parser's refusals (HPE_*): a reset or a timeout is Node's to handle as it does.
  if (!error.code?.startsWith("HPE_") || !socket.writable) {
    if (error.code === "ERR_HTTP_REQUEST_TIMEOUT" && socket.writable)
      socket.end("HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n");
    else socket.destroy();
    return;
  }
  const tooLarge = error.code === "HPE_HEADER_OVERFLOW";
  const status = tooLarge ? 431 : 400;
  const message = tooLarge
    ? "are too large"
    : "could not be parsed: a header name or value holds a character HTTP does not allow (a control character), or the request line is malformed";
  const { headers, body } = refusal(
    status,
    message,
    "headers",
    `the request's headers ${message}; nothing was read`,
  );
  socket.end(
    `HTTP/1.1 ${status} ${tooLarge ? "Request Header Fields Too Large" : "Bad Request"}\r\n` +
      Object.entries(headers)
        .map(([name, value]) => `${name}: ${value}\r\n`)
        .join("") +
      `\r\n${body}`,
  );
}

/**
 * An HTTP/1.1 request without Host (RFC 9112 §3.2 makes it a 400), answered as the parser's
 * refusals are; null for any other request (HTTP/1.0 may omit Host). Node's own check
 * (`requireHostHeader`) answers a bare 400 before any listener or event sees the request, so
 * the local server turns it off and asks this first. In AWS the HTTP API's front end takes
 * every request before a Lambda does, as for the parser's refusals.
 */
export function missingHostAnswer(
  incoming: Pick<IncomingMessage, "headers" | "httpVersion">,
): Response | null {
  if (incoming.headers.host !== undefined || incoming.httpVersion !== "1.1") return null;
  const message = "is required in an HTTP/1.1 request (RFC 9112 §3.2)";
  const { headers, body } = refusal(400, message, "headers.host", `Host ${message}; nothing was read`);
  return new Response(body, { status: 400, headers });
}
