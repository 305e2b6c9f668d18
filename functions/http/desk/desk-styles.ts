import { createHash } from "node:crypto";
import { DASHBOARD_CSS_HASH } from "../pages/dashboard-styles.js";

/**
 * The desk's forms, after the GOV.UK design system's error pattern: a summary at the top, each
 * message beside its field, a thick red rule along a field in error. A constant, like the
 * dashboard's stylesheet, allowed by its hash.
 */
export const DESK_CSS = `
.desk-form{max-width:44rem}
.desk-form fieldset{border:1px solid var(--line);border-radius:.5rem;padding:.5rem 1rem 1rem;margin:0 0 1.25rem}
.desk-form legend{font-weight:700;padding:0 .35rem;font-size:1.05rem}
.desk-form .field{margin:.75rem 0 0}
.desk-form .field>label,.desk-form .field>.label{font-weight:600;font-size:1rem}
.desk-form input:not([type=radio]):not([type=checkbox]),.desk-form textarea,.desk-form select{width:100%;max-width:100%}
.desk-form input.narrow{max-width:12rem}
.desk-form textarea{font:inherit;padding:.4rem .5rem;border:1px solid #767676;border-radius:.3rem;min-height:5rem}
.desk-form .field-hint{color:var(--muted);font-size:.9rem;margin:0}
.desk-form .field-error{color:#b3261e;font-weight:700;margin:.15rem 0}
.desk-form .field.has-error{border-left:.3rem solid #b3261e;padding-left:.75rem}
.desk-form .has-error input,.desk-form .has-error textarea,.desk-form .has-error select{border:2px solid #b3261e}
.desk-form .row{display:grid;gap:0 1rem;grid-template-columns:repeat(auto-fit,minmax(min(100%,12rem),1fr))}
.desk-form .choices{list-style:none;padding:0;margin:.25rem 0}
.desk-form .choices li{display:flex;gap:.5rem;align-items:flex-start;margin:.35rem 0}
.desk-form .choices input{min-height:auto;width:1.25rem;height:1.25rem;margin-top:.15rem;flex:none}
.desk-form .actions{display:flex;flex-wrap:wrap;gap:1rem;align-items:center;margin:1rem 0}
.desk-form button.secondary{background:#fff;color:#14304f}
.error-summary{border:4px solid #b3261e;padding:.75rem 1rem;margin:1rem 0;max-width:44rem}
.error-summary h2{border:0;margin:0 0 .5rem;padding:0}
.error-summary ul{margin:0;padding-left:1.2rem}
.error-summary a{color:#b3261e;font-weight:700}
.desk-bar{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:center;margin:.75rem 0}
.desk-bar form{margin:0}
.desk-bar button{background:#fff;color:#14304f}
.desk-form [hidden]{display:none}
.desk-links{display:flex;flex-wrap:wrap;gap:.25rem 1rem;list-style:none;padding:0;margin:.5rem 0}
`;

const DESK_CSS_HASH = `sha256-${createHash("sha256").update(DESK_CSS).digest("base64")}`;

/**
 * The dashboard's policy with the desk's stylesheet allowed too, and the desk's one script of
 * its own origin (the upload's progress, upload-script.ts): never an inline one.
 */
export const DESK_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "connect-src 'self'",
  `style-src '${DASHBOARD_CSS_HASH}' '${DESK_CSS_HASH}'`,
  "img-src 'self' data:",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join("; ");
