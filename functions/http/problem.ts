import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { FieldError } from "../../events/validate.js";
import { LedgerError } from "../errors.js";
import type { Logger } from "../logger.js";

export const PROBLEM_JSON = "application/problem+json";

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

/** The one place where errors become answers (RFC 9457 problem documents). */
export function createErrorHandler(log: Logger) {
  return (error: Error, c: Context): Response => {
    if (error instanceof LedgerError) {
      return problemResponse(c, {
        type: `/docs#problem-${error.slug}`,
        title: error.title,
        status: error.status,
        detail: error.message,
        instance: c.req.path,
        ...(error.errors ? { errors: error.errors } : {}),
        ...error.extra,
      });
    }
    log.error("unhandled error", {
      path: c.req.path,
      method: c.req.method,
      error: String(error),
      stack: error.stack,
    });
    return problemResponse(c, {
      type: "/docs#problem-internal",
      title: "Internal error",
      status: 500,
      detail: "The archive could not answer; nothing was acknowledged. The error is logged.",
      instance: c.req.path,
    });
  };
}

export function notFoundHandler(c: Context): Response {
  return problemResponse(c, {
    type: "/docs#problem-not-found",
    title: "Not found",
    status: 404,
    detail: `no route ${c.req.method} ${c.req.path}; see /docs`,
    instance: c.req.path,
  });
}
