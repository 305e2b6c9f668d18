import type { Context } from "hono";
import { accepts } from "hono/accepts";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { FieldError } from "../../events/validate.js";
import { LedgerError } from "../errors.js";
import type { Logger } from "../logger.js";
import { loggedPath } from "./logged-path.js";

export const PROBLEM_JSON = "application/problem+json";

/** A problem document lists at most this many failing fields, and says how many more there were. */
export const MAX_PROBLEM_ERRORS = 100;

function listed(errors: FieldError[]): { errors: FieldError[]; errorsOmitted?: number } {
  if (errors.length <= MAX_PROBLEM_ERRORS) return { errors };
  return { errors: errors.slice(0, MAX_PROBLEM_ERRORS), errorsOmitted: errors.length - MAX_PROBLEM_ERRORS };
}

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance?: string;
  errors?: FieldError[];
  [extra: string]: unknown;
}

export function problemResponse(c: Context, problem: Problem): Response {
  return c.body(JSON.stringify(problem), problem.status as ContentfulStatusCode, {
    "Content-Type": PROBLEM_JSON,
  });
}

/**
 * The request's path as a URI reference (RFC 9457 `instance`): percent-encoded as it was sent,
 * where the routes see it decoded ("/sources/Nobody Real").
 */
function instanceOf(c: Context): string {
  // Behind API Gateway the path may come decoded: a bare `%` is then made a valid escape.
  return new URL(c.req.url).pathname.replace(/%(?![0-9A-Fa-f]{2})/g, "%25");
}

/** How a group of routes whose answers are pages shows a problem (pages/problem-page.tsx). */
export type ProblemPage = (c: Context, problem: Problem) => Promise<Response>;

/**
 * Whether the request asks for a page before a problem document: a browser's navigation sends
 * `Accept: text/html,…`; a program that
 * sends none, or accepts any type, gets the problem document.
 */
function wantsPage(c: Context): boolean {
  const supports = ["text/html", PROBLEM_JSON, "application/json"];
  return accepts(c, { header: "Accept", supports, default: PROBLEM_JSON }) === "text/html";
}

/**
 * The one place where errors become answers: RFC 9457 problem documents, or for routes that
 * answer people with pages, the same problem as a page (`page`) when the request asks for HTML.
 */
export function createErrorHandler(log: Logger, page?: ProblemPage) {
  const answer = (c: Context, problem: Problem) =>
    page && wantsPage(c) ? page(c, problem) : problemResponse(c, problem);
  return (error: Error, c: Context): Response | Promise<Response> => {
    if (error instanceof LedgerError) {
      // Nobody is left to read the answer; one line says what happened, without a stack.
      if (error.slug === "client-closed")
        log.info("client closed the connection", { path: loggedPath(c.req.path), method: c.req.method });
      // A 5xx is the archive's own failure: whoever runs it must hear of it, not only the client.
      else if (error.status >= 500)
        log.error(error.title, { path: loggedPath(c.req.path), method: c.req.method, detail: error.message });
      return answer(c, {
        type: `/docs#problem-${error.slug}`,
        title: error.title,
        status: error.status,
        detail: error.message,
        instance: instanceOf(c),
        ...(error.errors ? listed(error.errors) : {}),
        ...error.extra,
      });
    }
    log.error("unhandled error", {
      path: loggedPath(c.req.path),
      method: c.req.method,
      error: String(error),
      stack: error.stack,
    });
    return answer(c, {
      type: "/docs#problem-internal",
      title: "Internal error",
      status: 500,
      detail: "The archive could not answer; nothing was acknowledged. The error is logged.",
      instance: instanceOf(c),
    });
  };
}

export function notFoundHandler(c: Context): Response {
  return problemResponse(c, {
    type: "/docs#problem-not-found",
    title: "Not found",
    status: 404,
    detail: `no route ${c.req.method} ${c.req.path}; see /docs`,
    instance: instanceOf(c),
  });
}
