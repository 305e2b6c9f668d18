/**
 * The site icon, served at /favicon.ico, where browsers look for it unasked: the pages stay
 * free of any <link> (nothing loaded from anywhere), and no page view logs a 404.
 */
export const FAVICON_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect x="5" y="2" width="22" height="28" rx="3" fill="#1f3a5f"/><path d="M10 9h12M10 14h12M10 19h7" stroke="#fff" stroke-width="2" stroke-linecap="round"/><circle cx="21" cy="23" r="3.5" fill="none" stroke="#f2b33d" stroke-width="2"/></svg>';
