import type { Duplex } from "node:stream";

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
  const body = JSON.stringify({
    type: "/docs#problem-malformed-request",
    title: "Malformed request",
    status,
    detail: `the request's headers ${message}; nothing was read`,
    errors: [{ path: "headers", message }],
  });
  socket.end(
    `HTTP/1.1 ${status} ${tooLarge ? "Request Header Fields Too Large" : "Bad Request"}\r\n` +
      "Content-Type: application/problem+json\r\n" +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      "X-Content-Type-Options: nosniff\r\n" +
      "Connection: close\r\n\r\n" +
      body,
  );
}
