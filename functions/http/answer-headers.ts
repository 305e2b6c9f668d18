import type { MiddlewareHandler } from "hono";
import { secureHeaders } from "hono/secure-headers";

/**
 * Headers every answer carries, JSON, pages, /docs and problem documents alike: `nosniff`, so
 * no browser reads stored text as another type than the one declared. The other headers of
 * Hono's middleware are off here: the pages set their own policy (dashboard.tsx), and
 * cross-origin ones would change who may read the public API.
 */
export function answerHeaders(): MiddlewareHandler {
  return secureHeaders({
    xContentTypeOptions: true,
    crossOriginResourcePolicy: false,
    crossOriginOpenerPolicy: false,
    originAgentCluster: false,
    referrerPolicy: false,
    strictTransportSecurity: false,
    xDnsPrefetchControl: false,
    xDownloadOptions: false,
    xFrameOptions: false,
    xPermittedCrossDomainPolicies: false,
    xXssProtection: false,
    removePoweredBy: false,
  });
}
