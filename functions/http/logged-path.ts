/**
 * A request's path as the logs keep it. A source's name in the path (`/sources/{name}`,
 * `/source/{name}`) may be a person's, a private witness's real name typed by whoever asks:
 * the logs keep the route, never the name (as API Gateway's access log keeps its route key).
 */
export function loggedPath(path: string): string {
  // Case and slashes as sent: a name may hold a slash, and /Sources/…, //sources/… or
  // /sources%2F… are 404s that still log, with the name a reader typed in them.
  return path.replace(/^(.*?)((?:\/|%2F)sources?)(?:\/|%2F).*$/i, "$1$2/{name}");
}
