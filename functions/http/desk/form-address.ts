import { randomBytes } from "node:crypto";

/** A form's own event id: what makes sending it twice store one event. */
export const newEventId = (): string => `desk-${randomBytes(12).toString("base64url")}`;

/**
 * A link to a form, with the eventId its form will carry: the page Back returns to after the
 * form is sent is then the same form, and sending it again stores nothing new.
 */
export const formAddress = (path: string): string => `${path}?eventId=${newEventId()}`;

/** The same form's address without its eventId: a new, empty form. */
export function withoutEventId(address: string): string {
  const url = new URL(address, "http://desk.invalid");
  url.searchParams.delete("eventId");
  return `${url.pathname}${url.search}`;
}
