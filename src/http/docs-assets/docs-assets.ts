/**
 * The reference page's own files (/docs): pronet's logo in its top bar, its favicon and a small
 * stylesheet, served by this service (the logo inside the page's script, as the page shows it), never
 * fetched from elsewhere. Kept as text in the code, so that every build of the service carries them.
 */

/** pronet's mark: three linked nodes on a rounded square, 40 units wide. */
const MARK = `  <rect width="40" height="40" rx="8" fill="#0b5cad"/>
  <g stroke="#ffffff" stroke-width="2.5" stroke-linecap="round">
    <line x1="12" y1="28" x2="20" y2="12"/>
    <line x1="20" y1="12" x2="28" y2="26"/>
    <line x1="12" y1="28" x2="28" y2="26"/>
  </g>
  <g fill="#ffffff">
    <circle cx="12" cy="28" r="4"/>
    <circle cx="20" cy="12" r="4"/>
    <circle cx="28" cy="26" r="4"/>
  </g>`

/** The top bar's logo: pronet's mark and name, white on the bar's dark blue. */
export const LOGO_SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="180" height="40" viewBox="0 0 180 40" role="img" aria-label="pronet">
${MARK}
  <text x="50" y="28" fill="#ffffff" font-family="system-ui, -apple-system, 'Segoe UI', Roboto, Helvetica, Arial, sans-serif" font-size="24" font-weight="700">pronet<tspan dx="8" fill="#9cc3ea" font-size="14" font-weight="400">API</tspan></text>
</svg>
`

/** The mark alone, for the browser's tab. */
export const FAVICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="32" height="32" viewBox="0 0 40 40">
${MARK}
</svg>
`

/** The page in pronet's colours; the top bar's address field, which would load another description into the page, is hidden. */
export const DOCS_CSS = `.swagger-ui .topbar { background-color: #0b2e52; }
.swagger-ui .topbar .download-url-wrapper { display: none; }
`
