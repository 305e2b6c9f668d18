import type { MiddlewareHandler } from "hono";
import { type Authenticator, type Role, requireRole } from "./auth.js";

/**
 * A write checks its credentials before anything else (query, path, headers, body): a caller
 * without them learns nothing about what it sent, and always gets the same 401 (or 403).
 * Put first in a write route's chain: `app.post(path, credentialsFirst(…), acceptQuery(), …)`.
 */
export function credentialsFirst(authenticate: Authenticator, role: Role, doing: string): MiddlewareHandler {
  return async (c, next) => {
    requireRole(authenticate, c, role, doing);
    await next();
  };
}
