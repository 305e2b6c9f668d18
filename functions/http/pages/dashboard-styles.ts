import { createHash } from "node:crypto";

/**
 * The dashboard's whole stylesheet, inlined in each page: no asset to fetch, so pages work
 * offline and from Lambda alike. It is a constant (never user data), which is why the layout
 * may print it unescaped; its hash lets the Content-Security-Policy allow exactly this style
 * and nothing else.
 */
export const DASHBOARD_CSS = `
:root{color-scheme:light;--ink:#1a1a1a;--muted:#4f4f4f;--line:#c8c8c8;--bg:#fff;--panel:#f5f6f8;--link:#0b4f9c;--focus:#0b4f9c;--past:#8a4b00;--past-bg:#fff3df}
*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;overflow-wrap:break-word;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--ink);background:var(--bg)}
a{color:var(--link)}
a:hover{text-decoration-thickness:2px}
:focus-visible{outline:3px solid var(--focus);outline-offset:2px;border-radius:2px}
.skip{position:absolute;left:.5rem;top:-3rem;background:#fff;padding:.5rem 1rem;border:2px solid var(--focus);z-index:2}
.skip:focus{top:.5rem}
.site{background:#14304f;color:#fff}
.site-inner,main,.foot{max-width:72rem;margin:0 auto;padding:0 1rem}
.site-inner{display:flex;flex-wrap:wrap;gap:.25rem 1.5rem;align-items:baseline;padding:.6rem 1rem}
.site a{color:#fff}
.brand{font-weight:700;font-size:1.1rem;text-decoration:none}
.site nav ul{display:flex;gap:1rem;list-style:none;margin:0;padding:0}
h1{font-size:1.6rem;line-height:1.25;margin:1rem 0 .5rem;overflow-wrap:anywhere}
h2{font-size:1.3rem;margin:2rem 0 .5rem;padding-top:.5rem;border-top:1px solid var(--line)}
h3{font-size:1.1rem;margin:1.25rem 0 .25rem}
code{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:.88em;overflow-wrap:anywhere}
.muted{color:var(--muted)}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
.tag{display:inline-block;font-size:.8rem;font-weight:600;padding:0 .45rem;border-radius:.75rem;border:1px solid currentColor;white-space:nowrap;vertical-align:.1em}
.tag-contested{color:#8f1d14;background:#fdecea}
.notice{border-left:.4rem solid #1d6b36;background:#e6f4ea;padding:.5rem 1rem;margin:1rem 0}
.tag-retracted{color:#5a2d82;background:#f1eafa}
.verdict-false{color:#8f1d14;background:#fdecea}
.verdict-disputed{color:#7a4a00;background:#fff3df}
.verdict-supported{color:#175c2c;background:#e6f4ea}
.verdict-unverified,.verdict-unassessed{color:#3d3d3d;background:#efefef}
.filters{display:flex;flex-wrap:wrap;gap:.75rem 1rem;align-items:flex-end;background:var(--panel);padding:.75rem 1rem;border-radius:.5rem;margin:.5rem 0 1rem}
.field{display:flex;flex-direction:column;gap:.2rem}
.field label{font-weight:600;font-size:.9rem}
input,select,button{font:inherit;padding:.4rem .5rem;border:1px solid #767676;border-radius:.3rem;background:#fff;color:var(--ink);min-height:2.5rem}
button{background:#14304f;color:#fff;border-color:#14304f;cursor:pointer;padding:.4rem 1rem}
button:hover{background:#0e2238}
.filters>a{padding:.5rem 0}
.hint{font-size:.85rem;color:var(--muted);margin:.25rem 0 0;flex-basis:100%}
.error{color:#8f1d14;font-weight:600}
.cards{list-style:none;padding:0;margin:0;display:grid;gap:1rem;grid-template-columns:repeat(auto-fill,minmax(min(100%,20rem),1fr))}
.card{border:1px solid var(--line);border-radius:.5rem;padding:.75rem 1rem;height:100%;overflow-wrap:anywhere}
.card h2{border:0;margin:0 0 .25rem;padding:0;font-size:1.15rem}
.card p{margin:.25rem 0}
.figures{display:grid;grid-template-columns:auto 1fr;gap:0 .75rem;margin:.5rem 0}
.figures dt{color:var(--muted)}
.figures dd{margin:0;font-weight:600}
.pager{margin:1.5rem 0}
.crumbs{margin:.75rem 0 0}
.past-banner{background:var(--past-bg);border:2px solid var(--past);border-left-width:.6rem;color:#4a2800;padding:.6rem 1rem;margin:1rem 0;border-radius:.3rem}
.past-banner p{margin:.2rem 0}
.past-banner strong{font-size:1.05rem}
body.past .site{background:#5c3300}
.headlines{font-weight:600;font-size:1.05rem}
.head-meta{display:flex;flex-wrap:wrap;gap:.25rem 1rem;color:var(--muted);margin:0}
.toc ul{display:flex;flex-wrap:wrap;gap:.25rem 1rem;list-style:none;padding:0;margin:.5rem 0}
.tools{display:grid;gap:1rem;grid-template-columns:repeat(auto-fit,minmax(min(100%,22rem),1fr));margin:1rem 0}
.panel{background:var(--panel);border-radius:.5rem;padding:.75rem 1rem}
.panel h2{border:0;margin:0 0 .25rem;padding:0;font-size:1.05rem}
.known-at{display:flex;flex-wrap:wrap;gap:.5rem;align-items:flex-end}
.versions{display:flex;flex-wrap:wrap;gap:.25rem .6rem;list-style:none;padding:0;margin:.5rem 0 0;font-size:.9rem}
.versions [aria-current]{font-weight:700;text-decoration:none;color:var(--ink)}
.integrity.ok{border-left:.4rem solid #1d6b36}
.integrity.bad{border-left:.4rem solid #b3261e;background:#fdecea}
.integrity p{margin:.2rem 0}
.category{margin-bottom:1.5rem}
.range-note{margin:0;color:var(--muted);font-size:.9rem}
.by-source{margin:.4rem 0;padding-left:1.2rem}
.chart-figure{margin:.5rem 0;max-width:44rem}
.chart{width:100%;height:auto;display:block;font-size:13px;fill:#333}
.chart .axis-title{fill:#4f4f4f;font-size:12px}
.chart .retracted-label{fill:#5a2d82;font-size:12px;font-weight:600}
.legend{list-style:none;padding:0;margin:.25rem 0;display:flex;flex-wrap:wrap;gap:.25rem 1rem;font-size:.9rem}
.legend li{display:flex;align-items:center;gap:.35rem}
.swatch{flex:none}
.table-wrap{overflow-x:auto;max-width:100%}
table{border-collapse:collapse;margin:.5rem 0;font-size:.9rem}
th,td{border:1px solid var(--line);padding:.25rem .5rem;text-align:left;vertical-align:top}
th{background:var(--panel)}
tr.retracted td{color:var(--muted)}
details>summary{cursor:pointer;color:var(--link);margin:.25rem 0}
.quote{margin:0 0 1rem;padding:.5rem 1rem;border-left:.3rem solid var(--line);background:#fafafa}
.quote blockquote{margin:0;font-size:1.02rem;white-space:pre-wrap;overflow-wrap:anywhere}
.quote figcaption{color:var(--muted);font-size:.9rem;margin-top:.25rem}
.denial{border:1px solid var(--line);border-radius:.5rem;padding:.5rem 1rem;margin:0 0 1rem}
.denial h3{margin:.25rem 0}
.denial p{margin:.25rem 0}
.assessments{margin:.25rem 0;padding-left:1.2rem}
.timeline{list-style:none;padding:0;margin:0;border-left:3px solid var(--line)}
.event{position:relative;margin:0 0 1rem;padding:0 0 0 1rem}
.event::before{content:"";position:absolute;left:calc(-1.5px - .4rem - 3px);top:.45rem;width:.8rem;height:.8rem;border-radius:50%;background:#fff;border:3px solid #14304f}
.event.retracted::before{border-color:#5a2d82;background:#f1eafa}
.event:target{background:#fffbe6}
.ev-head{display:flex;flex-wrap:wrap;gap:.25rem .75rem;align-items:baseline}
.ev-head .ver{font-weight:700;font-family:ui-monospace,monospace}
.ev-body{margin:.25rem 0;overflow-wrap:anywhere}
.event.retracted .ev-body{text-decoration:line-through;text-decoration-thickness:1px}
.ev-meta{display:grid;grid-template-columns:max-content 1fr;gap:0 .75rem;margin:.25rem 0;font-size:.9rem}
.ev-meta dt{color:var(--muted)}
.ev-meta dd{margin:0;overflow-wrap:anywhere}
.codebook table{display:block;overflow-x:auto;max-width:100%}
.codebook pre{background:var(--panel);padding:.75rem;overflow-x:auto}
.codebook .toc{border-left:4px solid var(--line);padding-left:1rem;margin:1rem 0 2rem}
.codebook .toc ul{display:block;list-style:disc;padding-left:1.2rem;margin:.2rem 0}
.codebook .toc ul ul{font-size:.9rem}
.codebook .toc h2{border-top:0;margin-top:0;padding-top:0}
.foot{color:var(--muted);font-size:.85rem;margin-top:3rem;padding-bottom:2rem;border-top:1px solid var(--line)}
@media (max-width:40rem){
  h1{font-size:1.35rem}
  .ev-meta{grid-template-columns:1fr}
  .ev-meta dd{margin-bottom:.25rem}
  .chart{font-size:20px}
  .chart .axis-title,.chart .retracted-label{font-size:17px}
}
@media (prefers-reduced-motion:reduce){*{scroll-behavior:auto!important}}
`;

export const DASHBOARD_CSS_HASH = `sha256-${createHash("sha256").update(DASHBOARD_CSS).digest("base64")}`;

/**
 * No script at all, and only the one inline stylesheet: even if escaping ever failed, the
 * browser would refuse to run injected script. Images only from the page itself (inline SVG).
 */
export const DASHBOARD_CSP = [
  "default-src 'none'",
  `style-src '${DASHBOARD_CSS_HASH}'`,
  "img-src 'self' data:",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join("; ");
