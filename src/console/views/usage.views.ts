/**
 * The usage page: credits and requests per UTC day as a chart (drawn from the table beside it, so the
 * figures are there without script) and the endpoint × status table, for a range of days.
 */
import type { UsageReport } from '../../domain/usage/usage-report.ts'
import { num } from './format.ts'
import { html, type Html } from './html.ts'
import { fieldState } from './layout.ts'

/**
 * `typed` is the range asked for when it was refused (the report then shows the default range, and
 * the form what was typed); `invalid` names the fields the page's error is about.
 */
export function usageBody(o: { report: UsageReport; from: string; to: string; typed?: { from?: string; to?: string }; invalid?: readonly string[] | undefined }): Html {
  const r = o.report
  const statuses = [...new Set(r.endpoints.flatMap((e) => Object.keys(e.statusCodes)))].sort()
  const csv = `/console/usage.csv?from=${encodeURIComponent(o.from)}&to=${encodeURIComponent(o.to)}`
  return html`
<form method="get" action="/console/usage" class="card row" aria-label="Date range">
  <div><label for="from">From (UTC day)</label><input type="date" id="from" name="from" value="${o.typed?.from ?? o.from}" required${fieldState('from', o)}></div>
  <div><label for="to">To (UTC day)</label><input type="date" id="to" name="to" value="${o.typed?.to ?? o.to}" required${fieldState('to', o)}></div>
  <div><button type="submit">Show</button></div>
  <p class="hint">At most 366 days. The figures are those of <code>GET /api/v1/usage</code> for the same days.</p>
</form>
<section class="card" aria-labelledby="totals">
  <h2 id="totals">${o.from} to ${o.to}</h2>
  <dl class="facts">
    <dt>Credits used</dt><dd>${num(r.creditsUsed)}</dd>
    <dt>Requests</dt><dd>${num(r.requests)}</dd>
    <dt>Billable requests</dt><dd>${num(r.billableRequests)}</dd>
    <dt>Credits remaining</dt><dd>${num(r.creditsRemaining)}</dd>
  </dl>
  <p><a class="button secondary" href="${csv}" download>Download CSV</a></p>
</section>
<section class="card" aria-labelledby="per-day">
  <h2 id="per-day">Per day</h2>
  <div class="chart" hidden><canvas id="usage-chart" role="img" aria-label="Credits and requests per day, as in the table below"></canvas></div>
  <div class="table-wrap" tabindex="0" role="region" aria-label="Credits and requests per day">
  <table id="usage-days">
    <caption>Credits and requests per UTC day</caption>
    <thead><tr><th scope="col">Day</th><th scope="col" class="num">Credits</th><th scope="col" class="num">Requests</th><th scope="col" class="num">Billable</th></tr></thead>
    <tbody>${r.days.map(
      (d) => html`<tr><td>${d.date}</td><td class="num" data-value="${d.creditsUsed}">${num(d.creditsUsed)}</td><td class="num" data-value="${d.requests}">${num(d.requests)}</td><td class="num">${num(d.billableRequests)}</td></tr>`,
    )}</tbody>
  </table>
  </div>
</section>
<section class="card" aria-labelledby="per-endpoint">
  <h2 id="per-endpoint">Per endpoint and status</h2>
  ${
    r.endpoints.length === 0
      ? html`<p>No calls in this range.</p>`
      : html`<div class="table-wrap" tabindex="0" role="region" aria-label="Requests per endpoint and status">
  <table>
    <caption>Requests per endpoint and HTTP status</caption>
    <thead><tr><th scope="col">Endpoint</th><th scope="col" class="num">Credits</th><th scope="col" class="num">Requests</th>${statuses.map((s) => html`<th scope="col" class="num">${s}</th>`)}</tr></thead>
    <tbody>${r.endpoints.map(
      (e) => html`<tr><th scope="row"><code>${e.endpoint}</code></th><td class="num">${num(e.creditsUsed)}</td><td class="num">${num(e.requests)}</td>${statuses.map((s) => html`<td class="num">${num(e.statusCodes[s] ?? 0)}</td>`)}</tr>`,
    )}</tbody>
  </table></div>`
  }
</section>
<script src="/console/assets/chart.umd.min.js" defer></script>`
}

/** The same figures as CSV: one line per day, then one per endpoint and status. */
export function usageCsv(report: UsageReport): string {
  const lines = ['kind,day_or_endpoint,status,credits,requests,billable_requests']
  for (const d of report.days) lines.push(`day,${d.date},,${d.creditsUsed},${d.requests},${d.billableRequests}`)
  for (const e of report.endpoints) {
    for (const [status, requests] of Object.entries(e.statusCodes)) lines.push(`endpoint,${csvField(e.endpoint)},${status},,${requests},`)
    lines.push(`endpoint,${csvField(e.endpoint)},all,${e.creditsUsed},${e.requests},${e.billableRequests}`)
  }
  return `${lines.join('\n')}\n`
}

/** A field quoted when it holds a comma, quote or line break; one starting like a formula is defused. */
function csvField(value: string): string {
  const safe = /^[=+\-@]/.test(value) ? `'${value}` : value
  return /[",\n\r]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe
}
