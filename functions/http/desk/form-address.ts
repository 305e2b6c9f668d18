import { randomBytes } from "node:crypto";

/** A form's own event id: what makes sending it twice store one event. */
export const newEventId = (): string => `desk-${randomBytes(12).toString("base64url")}`;

/**
 * A link to a form (a path, or a form's own address) with a new eventId for its form to carry:
 * the page Back returns to after the form is sent is then the same form, and sending it again
 * stores nothing new.
 */
export function formAddress(address: string): string {
  const url = new URL(address, "http://desk.invalid");
  url.searchParams.set("eventId", newEventId());
  return `${url.pathname}${url.search}`;
}
