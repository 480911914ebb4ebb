// End-of-test reports: `handleSummary` writes, for script <s>,
//   results/<s>-summary.json   k6's raw summary data
//   results/<s>-summary.md     one table row per access pattern, the thresholds, the totals
//   results/<s>-report.html    the same, self-contained (inline CSS, inline SVG charts)
// and prints a text summary to stdout. RESULTS_DIR overrides the directory (it must exist;
// k6 does not create directories).

import { PROFILE } from './config.js';
import { LATENCY_SCALE, patterns, ruLimit, RU_MARGIN, RU_MAX_FACTOR, RU_STAT } from './metrics.js';

function resultsDir() {
  if (__ENV.RESULTS_DIR) return __ENV.RESULTS_DIR.replace(/\/+$/, '');
  // loadtest/results, wherever k6 was started from.
  const url = import.meta.resolve('../results');
  return decodeURIComponent(url.replace(/^file:\/\//, '')).replace(/\/+$/, '');
}

// ---- reading k6's summary data ------------------------------------------------------------

function values(data, metric) {
  const m = data.metrics[metric];
  return m ? m.values : null;
}

function stat(data, metric, key) {
  const v = values(data, metric);
  if (!v) return null;
  const x = v[key];
  return x === undefined ? null : x;
}

/** Thresholds of a metric and its sub-metrics: [{metric, expr, ok}] */
function thresholdsOf(data, metricPrefix) {
  const out = [];
  for (const [name, m] of Object.entries(data.metrics)) {
    if (name !== metricPrefix && !name.startsWith(`${metricPrefix}{`)) continue;
    for (const [expr, r] of Object.entries(m.thresholds || {})) out.push({ metric: name, expr, ok: r.ok });
  }
  return out;
}

function allThresholds(data) {
  const out = [];
  for (const [name, m] of Object.entries(data.metrics)) {
    for (const [expr, r] of Object.entries(m.thresholds || {})) out.push({ metric: name, expr, ok: r.ok });
  }
  return out.sort((a, b) => a.metric.localeCompare(b.metric));
}

function rows(data) {
  const seconds = data.state.testRunDurationMs / 1000;
  return patterns().map((p) => {
    const count = stat(data, p.latencyMetric, 'count') || 0;
    // k6 reports zeros for a Trend without samples: show them as "no data".
    const st = (metric, key) => (count === 0 ? null : stat(data, metric, key));
    const ruCount = stat(data, p.ruMetric, 'count') || 0;
    const ru = (key) => (ruCount === 0 ? null : stat(data, p.ruMetric, key));
    const budget = p.ruBy
      ? Object.entries(p.ruBy.budgets).map(([k, v]) => `${p.ruBy.tag}=${k}: ${ruLimit(v)}`).join(', ')
      : p.ru === null || p.ru === undefined
        ? null
        : String(ruLimit(p.ru));
    const th = [...thresholdsOf(data, p.ruMetric), ...thresholdsOf(data, p.latencyMetric)];
    return {
      name: p.name,
      source: p.source || '',
      documented: p.ruBy ? Object.entries(p.ruBy.budgets).map(([k, v]) => `${v} (${p.ruBy.tag}=${k})`).join(', ') : p.ru,
      budget,
      count,
      rate: seconds > 0 ? count / seconds : 0,
      ruMed: ru('med'),
      ruP95: ru('p(95)'),
      ruMax: ru('max'),
      ruAvg: ru('avg'),
      latMed: st(p.latencyMetric, 'med'),
      latP95: st(p.latencyMetric, 'p(95)'),
      latP99: st(p.latencyMetric, 'p(99)'),
      latencyBudget: p.latencyMs ? Math.round(p.latencyMs * LATENCY_SCALE) : null,
      errors: stat(data, p.errorsMetric, 'count') || 0,
      throttled: stat(data, p.throttledMetric, 'count') || 0,
      thresholds: th,
      ok: th.every((t) => t.ok),
    };
  });
}

function totals(data) {
  const seconds = data.state.testRunDurationMs / 1000;
  const th = allThresholds(data);
  return {
    seconds,
    requests: stat(data, 'http_reqs', 'count') || 0,
    reqRate: stat(data, 'http_reqs', 'rate') || 0,
    iterations: stat(data, 'iterations', 'count') || 0,
    failedRate: stat(data, 'http_req_failed', 'rate') || 0,
    checksRate: stat(data, 'checks', 'rate'),
    ru: stat(data, 'ru_total', 'count') || 0,
    ruRate: stat(data, 'ru_total', 'rate') || 0,
    durMed: stat(data, 'http_req_duration', 'med'),
    durP95: stat(data, 'http_req_duration', 'p(95)'),
    durP99: stat(data, 'http_req_duration', 'p(99)'),
    vusMax: stat(data, 'vus_max', 'max') || stat(data, 'vus_max', 'value') || 0,
    dropped: stat(data, 'dropped_iterations', 'count') || 0,
    thresholds: th,
    passed: th.filter((t) => t.ok).length,
    ok: th.every((t) => t.ok),
  };
}

// ---- formatting -----------------------------------------------------------------------------

function num(x, digits = 2) {
  if (x === null || x === undefined || Number.isNaN(x)) return '–';
  return Number(x).toFixed(digits);
}

function ms(x) {
  if (x === null || x === undefined) return '–';
  if (x >= 1000) return `${(x / 1000).toFixed(2)} s`;
  return `${x.toFixed(x < 10 ? 2 : 1)} ms`;
}

function pct(x) {
  return x === null || x === undefined ? '–' : `${(x * 100).toFixed(2)} %`;
}

function esc(s) {
  return String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);
}

function mdCell(s) {
  return String(s).replace(/\|/g, '\\|');
}

function header(script, data, t) {
  return {
    title: `${script} — k6 ${PROFILE} run`,
    when: new Date().toISOString(),
    base: __ENV.BASE_URL || '(script default)',
    basePath: __ENV.BASE_PATH || '',
    verdict: t.ok ? 'PASSED' : 'FAILED',
  };
}

// ---- Markdown -------------------------------------------------------------------------------

function markdown(script, data) {
  const t = totals(data);
  const h = header(script, data, t);
  const rs = rows(data);
  const out = [];
  out.push(`# ${h.title}: ${h.verdict}`, '');
  out.push(`${h.when} · BASE_URL ${h.base}${h.basePath ? ` · BASE_PATH ${h.basePath}` : ''} · ${num(t.seconds, 1)} s`, '');
  out.push(`${t.requests} requests (${num(t.reqRate, 1)}/s), ${t.iterations} iterations, ` +
    `failed ${pct(t.failedRate)}, checks ${pct(t.checksRate)}, ` +
    `latency p50 ${ms(t.durMed)} / p95 ${ms(t.durP95)} / p99 ${ms(t.durP99)}, ` +
    `${num(t.ru, 1)} RU (${num(t.ruRate, 1)} RU/s), up to ${t.vusMax} VUs, ${t.dropped} dropped iterations.`, '');
  out.push(`RU budget = documented figure × ${RU_MARGIN}, compared with the pattern's \`${RU_STAT}\`; ` +
    `no single request may exceed the figure × ${RU_MAX_FACTOR} (\`max\`). Latency budgets are on p95.`, '');
  out.push('| pattern | requests | req/s | RU p50 | RU p95 | RU max | RU budget | latency p50 | latency p95 | latency p99 | errors | 429s | thresholds |');
  out.push('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|:---:|');
  for (const r of rs) {
    const th = r.thresholds.length === 0 ? '' : r.ok ? '✓' : '✗ ' + r.thresholds.filter((x) => !x.ok).map((x) => `\`${x.metric} ${x.expr}\``).join(' ');
    out.push(`| ${mdCell(r.name)} | ${r.count} | ${num(r.rate, 2)} | ${num(r.ruMed)} | ${num(r.ruP95)} | ${num(r.ruMax)} | ` +
      `${r.budget === null ? '–' : mdCell(r.budget)} | ${ms(r.latMed)} | ${ms(r.latP95)} | ${ms(r.latP99)} | ${r.errors} | ${r.throttled} | ${th} |`);
  }
  out.push('', `## Thresholds (${t.passed}/${t.thresholds.length} passed)`, '');
  for (const x of t.thresholds) out.push(`- ${x.ok ? '✓' : '✗'} \`${x.metric}\` \`${x.expr}\``);
  out.push('', '## Where the RU figures come from', '');
  for (const r of rs) {
    if (r.source) out.push(`- **${mdCell(r.name)}**: ${r.documented === null || r.documented === undefined ? 'not checked' : `${r.documented} RU`} — ${r.source}`);
  }
  out.push('');
  return out.join('\n');
}

// ---- HTML -----------------------------------------------------------------------------------

const COLORS = ['#4c78a8', '#f58518', '#9d755d'];

/**
 * A horizontal bar chart: one row per pattern, one bar per series, and an optional red tick
 * per row (the budget).
 */
function barChart({ title, unit, rows: data, series, limit = null, format = (x) => num(x) }) {
  const shown = data.filter((r) => series.some((s) => r[s.key] !== null && r[s.key] !== undefined));
  if (shown.length === 0) return `<p class="empty">${esc(title)}: no data.</p>`;
  const labelW = 170;
  const plotW = 640;
  const valueW = 110;
  const barH = 11;
  const rowH = series.length * (barH + 2) + 10;
  const top = 34;
  // The scale follows the data; a budget far above it (the back office's fan-out, the argon2
  // sign-up) is drawn as an arrow at the right edge rather than squashing every bar.
  let max = 0;
  for (const r of shown) {
    for (const s of series) max = Math.max(max, r[s.key] || 0);
  }
  for (const r of shown) {
    const lim = limit ? limit(r) : null;
    if (lim !== null && lim !== undefined && lim <= max * 1.5) max = Math.max(max, lim);
  }
  max = max > 0 ? max * 1.08 : 1;
  const x = (v) => labelW + (plotW * v) / max;
  const height = top + shown.length * rowH + 12;
  const width = labelW + plotW + valueW;
  const parts = [];
  parts.push(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-label="${esc(title)}">`);
  parts.push(`<text x="0" y="14" class="ct">${esc(title)}</text>`);
  let lx = labelW;
  series.forEach((s, i) => {
    parts.push(`<rect x="${lx}" y="20" width="10" height="10" fill="${COLORS[i % COLORS.length]}"/><text x="${lx + 14}" y="29" class="lg">${esc(s.label)}</text>`);
    lx += 14 + s.label.length * 7 + 16;
  });
  if (limit) {
    parts.push(`<rect x="${lx}" y="20" width="3" height="10" fill="#d62728"/><text x="${lx + 8}" y="29" class="lg">budget</text>`);
  }
  // Grid: 5 ticks.
  for (let i = 0; i <= 4; i++) {
    const v = (max * i) / 4;
    const gx = x(v);
    parts.push(`<line x1="${gx}" y1="${top - 2}" x2="${gx}" y2="${height - 12}" class="grid"/>`);
    parts.push(`<text x="${gx}" y="${height - 1}" class="ax" text-anchor="middle">${esc(format(v))}${i === 4 ? ' ' + esc(unit) : ''}</text>`);
  }
  shown.forEach((r, j) => {
    const y0 = top + j * rowH;
    parts.push(`<text x="${labelW - 6}" y="${y0 + rowH / 2 + 2}" class="lb" text-anchor="end">${esc(r.name)}</text>`);
    series.forEach((s, i) => {
      const v = r[s.key];
      if (v === null || v === undefined) return;
      const y = y0 + 4 + i * (barH + 2);
      const w = Math.max(1, x(v) - labelW);
      parts.push(`<rect x="${labelW}" y="${y}" width="${w.toFixed(1)}" height="${barH}" fill="${COLORS[i % COLORS.length]}"><title>${esc(r.name)} ${esc(s.label)}: ${esc(format(v))} ${esc(unit)}</title></rect>`);
      parts.push(`<text x="${(labelW + w + 4).toFixed(1)}" y="${y + barH - 2}" class="vl">${esc(format(v))}</text>`);
    });
    const lim = limit ? limit(r) : null;
    if (lim !== null && lim !== undefined && lim <= max) {
      const lx2 = x(lim);
      parts.push(`<line x1="${lx2}" y1="${y0 + 1}" x2="${lx2}" y2="${y0 + rowH - 5}" class="limit"><title>budget ${esc(format(lim))} ${esc(unit)}</title></line>`);
    } else if (lim !== null && lim !== undefined) {
      const ex = labelW + plotW;
      const ym = y0 + rowH / 2 - 2;
      parts.push(`<path d="M${ex - 8} ${ym - 5} L${ex} ${ym} L${ex - 8} ${ym + 5} Z" fill="#d62728"><title>budget ${esc(format(lim))} ${esc(unit)} (off the scale)</title></path>`);
      parts.push(`<text x="${ex + 4}" y="${ym + 4}" class="vl">≤ ${esc(format(lim))}</text>`);
    }
  });
  parts.push('</svg>');
  return parts.join('');
}

const CSS = `
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:24px auto;max-width:1100px;padding:0 16px;color:#1d2330;background:#fff}
h1{font-size:22px;margin:0 0 4px} h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid #e3e6ec;padding-bottom:4px}
.meta{color:#5b6475;margin:0 0 14px}
.verdict{display:inline-block;padding:2px 10px;border-radius:12px;font-weight:600;color:#fff;margin-left:8px;font-size:13px;vertical-align:middle}
.pass{background:#2e8540}.fail{background:#c62828}
.cards{display:flex;flex-wrap:wrap;gap:10px;margin:10px 0}
.card{border:1px solid #e3e6ec;border-radius:8px;padding:8px 12px;min-width:120px}
.card b{display:block;font-size:18px}.card span{color:#5b6475;font-size:12px}
table{border-collapse:collapse;width:100%;font-size:13px}
.scroll{overflow-x:auto}
th,td{padding:4px 8px;border-bottom:1px solid #eef0f4;text-align:left;white-space:nowrap}
th{background:#f6f7f9;font-weight:600}
td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}
tr.bad td{background:#fdecea}
.ok{color:#2e8540;font-weight:600}.ko{color:#c62828;font-weight:600}
code{font:12px ui-monospace,SFMono-Regular,Menlo,monospace;background:#f3f4f6;padding:1px 4px;border-radius:4px}
svg{display:block;margin:8px 0 18px;max-width:100%;height:auto}
svg .ct{font-weight:600;font-size:13px} svg .lg,svg .ax,svg .vl{font-size:11px;fill:#444}
svg .lb{font-size:12px;fill:#1d2330} svg .grid{stroke:#e8eaef} svg .limit{stroke:#d62728;stroke-width:3}
.note{color:#5b6475;font-size:12px} .empty{color:#888}
ul.th{columns:2;font-size:13px;padding-left:18px}
`;

function html(script, data) {
  const t = totals(data);
  const h = header(script, data, t);
  const rs = rows(data);
  const limitOf = (r) => {
    const p = patterns().find((q) => q.name === r.name);
    if (!p) return null;
    if (p.ruBy) return ruLimit(Math.max(...Object.values(p.ruBy.budgets)));
    return p.ru === null || p.ru === undefined ? null : ruLimit(p.ru);
  };
  const card = (value, label) => `<div class="card"><b>${esc(value)}</b><span>${esc(label)}</span></div>`;
  const body = [];
  body.push(`<h1>${esc(h.title)}<span class="verdict ${t.ok ? 'pass' : 'fail'}">${h.verdict}</span></h1>`);
  body.push(`<p class="meta">${esc(h.when)} · BASE_URL <code>${esc(h.base)}</code>${h.basePath ? ` · BASE_PATH <code>${esc(h.basePath)}</code>` : ''} · ${esc(num(t.seconds, 1))} s</p>`);
  body.push('<div class="cards">' + [
    card(`${num(t.reqRate, 1)}/s`, `${t.requests} requests`),
    card(pct(t.failedRate), 'failed requests'),
    card(pct(t.checksRate), 'checks passed'),
    card(ms(t.durP95), 'latency p95 (all)'),
    card(`${num(t.ruRate, 1)} RU/s`, `${num(t.ru, 0)} RU in total`),
    card(String(rs.reduce((s, r) => s + r.throttled, 0)), '429 responses'),
    card(`${t.passed}/${t.thresholds.length}`, 'thresholds passed'),
    card(String(t.vusMax), 'VUs (max)'),
  ].join('') + '</div>');

  body.push('<h2>Request units per pattern</h2>');
  body.push(`<p class="note">Bars: the request charge (<code>x-ms-request-charge</code>) of each request of the pattern. Red tick: the budget, documented figure × ${esc(RU_MARGIN)} (compared with the <code>${esc(RU_STAT)}</code>); no single request may cost more than the figure × ${esc(RU_MAX_FACTOR)}.</p>`);
  body.push(barChart({
    title: 'RU per request',
    unit: 'RU',
    rows: rs,
    series: [{ key: 'ruMed', label: 'p50' }, { key: 'ruP95', label: 'p95' }, { key: 'ruMax', label: 'max' }],
    limit: limitOf,
  }));
  body.push('<h2>Latency per pattern</h2>');
  body.push(barChart({
    title: 'Request duration',
    unit: 'ms',
    rows: rs,
    series: [{ key: 'latMed', label: 'p50' }, { key: 'latP95', label: 'p95' }, { key: 'latP99', label: 'p99' }],
    limit: (r) => r.latencyBudget,
    format: (v) => (v >= 100 ? v.toFixed(0) : v.toFixed(1)),
  }));

  body.push('<h2>Table</h2><div class="scroll"><table><thead><tr><th>pattern</th><th class="n">requests</th><th class="n">req/s</th>' +
    '<th class="n">RU p50</th><th class="n">RU p95</th><th class="n">RU max</th><th class="n">RU budget</th>' +
    '<th class="n">lat p50</th><th class="n">lat p95</th><th class="n">lat p99</th><th class="n">errors</th><th class="n">429s</th><th>thresholds</th></tr></thead><tbody>');
  for (const r of rs) {
    const th = r.thresholds.length === 0 ? '' : r.ok ? '<span class="ok">✓</span>' :
      '<span class="ko">✗</span> ' + r.thresholds.filter((x) => !x.ok).map((x) => `<code>${esc(x.expr)}</code>`).join(' ');
    body.push(`<tr class="${r.ok && r.errors === 0 ? '' : 'bad'}"><td title="${esc(r.source)}">${esc(r.name)}</td><td class="n">${r.count}</td><td class="n">${num(r.rate, 2)}</td>` +
      `<td class="n">${num(r.ruMed)}</td><td class="n">${num(r.ruP95)}</td><td class="n">${num(r.ruMax)}</td><td class="n">${r.budget === null ? '–' : esc(r.budget)}</td>` +
      `<td class="n">${ms(r.latMed)}</td><td class="n">${ms(r.latP95)}</td><td class="n">${ms(r.latP99)}</td>` +
      `<td class="n">${r.errors}</td><td class="n">${r.throttled}</td><td>${th}</td></tr>`);
  }
  body.push('</tbody></table></div>');

  body.push(`<h2>Thresholds (${t.passed}/${t.thresholds.length} passed)</h2><ul class="th">`);
  for (const x of t.thresholds) body.push(`<li><span class="${x.ok ? 'ok' : 'ko'}">${x.ok ? '✓' : '✗'}</span> <code>${esc(x.metric)}</code> <code>${esc(x.expr)}</code></li>`);
  body.push('</ul>');
  body.push('<h2>Where the RU figures come from</h2><ul>');
  for (const r of rs) {
    if (r.source) body.push(`<li><b>${esc(r.name)}</b>: ${r.documented === null || r.documented === undefined ? 'not checked' : esc(`${r.documented} RU`)} — ${esc(r.source)}</li>`);
  }
  body.push('</ul>');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">` +
    `<title>${esc(h.title)}</title><style>${CSS}</style></head><body>${body.join('\n')}</body></html>\n`;
}

// ---- text (stdout) --------------------------------------------------------------------------

function pad(s, n, right = false) {
  s = String(s);
  if (s.length >= n) return s;
  return right ? ' '.repeat(n - s.length) + s : s + ' '.repeat(n - s.length);
}

function text(script, data) {
  const t = totals(data);
  const rs = rows(data);
  const out = [];
  out.push('', `  ${script} — PROFILE=${PROFILE} — ${t.ok ? 'all thresholds passed' : 'THRESHOLDS FAILED'}`, '');
  out.push('  THRESHOLDS');
  for (const x of t.thresholds) out.push(`    ${x.ok ? '✓' : '✗'} ${x.metric} ${x.expr}`);
  out.push('', '  PER PATTERN');
  const cols = [['pattern', 20], ['reqs', 7, 1], ['req/s', 7, 1], ['RU p50', 8, 1], ['RU p95', 8, 1], ['RU max', 8, 1], ['budget', 8, 1],
    ['lat p50', 10, 1], ['lat p95', 10, 1], ['lat p99', 10, 1], ['err', 5, 1], ['429', 5, 1], ['', 2]];
  out.push('    ' + cols.map(([c, n, r]) => pad(c, n, r)).join(' '));
  for (const r of rs) {
    const cells = [r.name, r.count, num(r.rate, 2), num(r.ruMed), num(r.ruP95), num(r.ruMax),
      r.budget === null ? '–' : r.budget.length > 8 ? 'by tag' : r.budget, ms(r.latMed), ms(r.latP95), ms(r.latP99), r.errors, r.throttled,
      r.thresholds.length === 0 ? '' : r.ok ? '✓' : '✗'];
    out.push('    ' + cells.map((c, i) => pad(c, cols[i][1], cols[i][2])).join(' '));
  }
  out.push('', '  TOTALS');
  out.push(`    http_reqs.........: ${t.requests} (${num(t.reqRate, 1)}/s)    iterations: ${t.iterations}    dropped_iterations: ${t.dropped}    vus_max: ${t.vusMax}`);
  out.push(`    http_req_duration.: p50 ${ms(t.durMed)}  p95 ${ms(t.durP95)}  p99 ${ms(t.durP99)}`);
  out.push(`    http_req_failed...: ${pct(t.failedRate)}    checks: ${pct(t.checksRate)}`);
  out.push(`    ru_total..........: ${num(t.ru, 1)} RU (${num(t.ruRate, 1)} RU/s)`);
  out.push(`    duration..........: ${num(t.seconds, 1)} s`, '');
  return out.join('\n');
}

/** `export const handleSummary = summaryFor('blog');` */
export function summaryFor(script) {
  return function handleSummary(data) {
    const dir = resultsDir();
    const name = __ENV.RESULTS_PREFIX ? `${__ENV.RESULTS_PREFIX}${script}` : script;
    return {
      stdout: text(script, data),
      [`${dir}/${name}-summary.json`]: JSON.stringify(data, null, 2),
      [`${dir}/${name}-summary.md`]: markdown(script, data),
      [`${dir}/${name}-report.html`]: html(script, data),
    };
  };
}
