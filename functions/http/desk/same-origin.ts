import type { MiddlewareHandler } from "hono";
import { csrf } from "hono/csrf";
import { HTTPException } from "hono/http-exception";
import { CrossSiteFormError } from "../../errors.js";

/**
 * Hono's origin check (Origin or Sec-Fetch-Site must be this site) on a form post; a post from
 * another origin is the 403 problem every other refusal is, with nothing stored. With a
 * configured public origin the Origin must be that one: the request's own origin is built from
 * its Host, which any client may set to match a forged Origin. Without one, the request's own.
 */
export function sameOrigin(publicOrigin?: string): MiddlewareHandler {
  const check = csrf(publicOrigin ? { origin: publicOrigin } : undefined);
  return async (c, next) => {
    try {
      await check(c, next);
    } catch (error) {
      if (error instanceof HTTPException && error.status === 403)
        throw new CrossSiteFormError("a form posted from another site is refused; nothing was stored");
      throw error;
    }
  };
}
