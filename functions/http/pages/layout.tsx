import { raw } from "hono/html";
import type { Child, FC } from "hono/jsx";
import { DASHBOARD_CSS } from "./dashboard-styles.js";

const DEFAULT_DESCRIPTION =
  "An evidence-grade archive of reports about conflict incidents: who reported what, when, with every report kept and a hash chain anyone can check.";

/**
 * The frame of every dashboard page: a skip link, the site bar, one <main>, a footer.
 * `past` tints the frame so a past view is unmistakable even when scrolled past its banner.
 */
export const Layout: FC<{
  title: string;
  description?: string;
  past?: boolean;
  /** A second constant stylesheet (the desk's forms); its hash must be in the page's CSP. */
  styles?: string;
  children?: Child;
}> = ({ title, description, past, styles, children }) => (
  <html lang="en">
    <head>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      <meta name="referrer" content="no-referrer" />
      <meta name="description" content={description ?? DEFAULT_DESCRIPTION} />
      <title>{title}</title>
      {/* The stylesheet is a constant of this module, never user data: printing it raw is safe. */}
      <style>{raw(DASHBOARD_CSS)}</style>
      {styles ? <style>{raw(styles)}</style> : null}
    </head>
    <body class={past ? "past" : undefined}>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="site">
        <div class="site-inner">
          <a class="brand" href="/">
            Incident ledger
          </a>
          <nav aria-label="Site">
            <ul>
              <li>
                <a href="/">Incidents</a>
              </li>
              <li>
                <a href="/map">Map</a>
              </li>
              <li>
                <a href="/codebook">Codebook</a>
              </li>
              <li>
                <a href="/docs">API</a>
              </li>
            </ul>
          </nav>
        </div>
      </header>
      <main id="main" tabindex={-1}>
        {children}
      </main>
      <footer class="foot">
        <p>
          An event-sourced archive of reports: nothing is edited or deleted; corrections and retractions are
          new events. Every page here is built from the same data as the JSON API (<a href="/docs">/docs</a>).
        </p>
      </footer>
    </body>
  </html>
);

/** A page that only says something: not found, or a request the dashboard cannot read. */
export const MessagePage: FC<{ title: string; children?: Child }> = ({ title, children }) => (
  <Layout title={`${title} · Incident ledger`}>
    <h1>{title}</h1>
    {children}
    <p>
      <a href="/">Back to all incidents</a>
    </p>
  </Layout>
);
