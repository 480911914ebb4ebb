// The HTTP ceiling: how close a page comes to a static page of the same size served by the same
// actix setup (sitekit's /static/ceiling?bytes=N: same middleware, no engine call, no template).
// Closed model: VUS virtual users request as fast as they can, first the page for DURATION, then
// the static page for DURATION; the report gives both throughputs and their ratio.
//
//   k6 run -e BASE_URL=http://127.0.0.1:8081 loadtest/ceiling.js                  # blog home (Q6)
//   k6 run -e BASE_URL=http://127.0.0.1:8080 -e PAGE=category loadtest/ceiling.js # a WebStore category
//
// The static page answers loopback clients only (a 404 to anyone else): run k6 on the machine
// that serves the sites.
//
// PAGE: a path, or `category` (the first category linked from the home page). VUS (default 8),
// DURATION (default 20s), NAME (report name, default from the page), RESULTS_DIR.

import http from 'k6/http';
import { check } from 'k6';

const BASE = (__ENV.BASE_URL || 'http://127.0.0.1:8081').replace(/\/+$/, '');
const VUS = Number(__ENV.VUS || 8);
const DURATION = __ENV.DURATION || '20s';
const seconds = (d) => Number(d.replace(/s$/, '')) * (d.endsWith('m') ? 60 : 1);
const PHASE_S = DURATION.endsWith('m') ? Number(DURATION.slice(0, -1)) * 60 : seconds(DURATION);
const RESULTS_DIR = (__ENV.RESULTS_DIR || 'loadtest/results').replace(/\/+$/, '');

export const options = {
  scenarios: {
    page: { executor: 'constant-vus', exec: 'page', vus: VUS, duration: `${PHASE_S}s` },
    static: { executor: 'constant-vus', exec: 'staticPage', vus: VUS, duration: `${PHASE_S}s`, startTime: `${PHASE_S + 2}s` },
  },
  // Sub-metrics per scenario, so the summary has each phase's count and latency.
  thresholds: {
    'http_reqs{scenario:page}': ['count>0'],
    'http_reqs{scenario:static}': ['count>0'],
    'http_req_duration{scenario:page}': ['p(99)>=0'],
    'http_req_duration{scenario:static}': ['p(99)>=0'],
    'http_req_failed{scenario:page}': ['rate<0.01'],
    'http_req_failed{scenario:static}': ['rate<0.01'],
  },
  summaryTrendStats: ['avg', 'med', 'p(95)', 'p(99)', 'max'],
};

export function setup() {
  let path = __ENV.PAGE || '/';
  if (path === 'category') {
    const home = http.get(`${BASE}/`);
    const m = /href="(\/categories\/[^"?#]+)"/.exec(home.body || '');
    if (!m) throw new Error('setup: no category link on the home page');
    path = m[1];
  }
  const r = http.get(`${BASE}${path}`);
  if (r.status !== 200) throw new Error(`setup: ${path} answered ${r.status}`);
  return { path, bytes: r.body.length, ru: Number(r.headers['X-Ms-Request-Charge'] || 0) };
}

export function page(data) {
  const r = http.get(`${BASE}${data.path}`);
  check(r, { 'page 200': (x) => x.status === 200 });
}

export function staticPage(data) {
  const r = http.get(`${BASE}/static/ceiling?bytes=${data.bytes}`);
  check(r, { 'static 200': (x) => x.status === 200 && x.body.length === data.bytes });
}

export function handleSummary(summary) {
  const m = summary.metrics;
  const count = (s) => (m[`http_reqs{scenario:${s}}`] || { values: { count: 0 } }).values.count;
  const lat = (s) => (m[`http_req_duration{scenario:${s}}`] || { values: {} }).values;
  const page = count('page') / PHASE_S;
  const stat = count('static') / PHASE_S;
  const ratio = stat ? page / stat : 0;
  const setupData = summary.setup_data || {};
  const name = __ENV.NAME || `ceiling${(setupData.path || '/').replace(/[^A-Za-z0-9]+/g, '-')}`.replace(/-+$/, '');
  const row = (label, rps, l) => `| ${label} | ${rps.toFixed(1)} | ${(l.med || 0).toFixed(2)} | ${(l['p(95)'] || 0).toFixed(2)} | ${(l['p(99)'] || 0).toFixed(2)} |`;
  const md = [
    `HTTP ceiling of \`${setupData.path}\` (${setupData.bytes} bytes, ${setupData.ru} RU) on ${BASE}: ${VUS} VUs, ${PHASE_S} s per phase.`,
    '',
    '| page | req/s | p50 ms | p95 ms | p99 ms |',
    '|---|---:|---:|---:|---:|',
    row(setupData.path, page, lat('page')),
    row(`static page of ${setupData.bytes} bytes`, stat, lat('static')),
    '',
    `Ratio: ${(ratio * 100).toFixed(0)}% of the static page's throughput (goal: at least 50%).`,
    '',
  ].join('\n');
  return {
    stdout: `\n${md}\n`,
    [`${RESULTS_DIR}/${name}.md`]: md,
    [`${RESULTS_DIR}/${name}.json`]: JSON.stringify({ path: setupData.path, bytes: setupData.bytes, ru: setupData.ru, vus: VUS, seconds: PHASE_S, pageRps: page, staticRps: stat, ratio, page: lat('page'), static: lat('static') }, null, 2),
  };
}
