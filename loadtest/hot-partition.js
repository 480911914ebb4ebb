// The hot partition (001_*: a partition key must spread the load): with provisioned throughput
// on the blog's `posts` container, the same arrival rate is sent first to ONE post's page (one
// logical partition, so one physical partition and its share of the RU/s) and then spread over
// the 100 posts of the home feed (all physical partitions). The hot phase is throttled (429 with
// Retry-After), the spread phase is not.
//
//   cargo run --release -- --throughput blog/posts=3500     # 100 RU/s per physical partition
//   k6 run -e BASE_URL=http://127.0.0.1:8081 loadtest/hot-partition.js
//
// RATE requests/s (default 40), DURATION per phase (default 20s), METRICS_URL (optional: the
// explorer's /metrics, whose per-partition lines for `posts` are printed at the end), RESULTS_DIR.

import http from 'k6/http';
import { check } from 'k6';
import { Counter, Trend } from 'k6/metrics';

const BASE = (__ENV.BASE_URL || 'http://127.0.0.1:8081').replace(/\/+$/, '');
const RATE = Number(__ENV.RATE || 40);
const PHASE_S = Number((__ENV.DURATION || '20s').replace(/s$/, ''));
const RESULTS_DIR = (__ENV.RESULTS_DIR || 'loadtest/results').replace(/\/+$/, '');

const throttled = new Counter('throttled_429');
const served = new Counter('served_200');
const ru = new Trend('ru_per_request');

http.setResponseCallback(http.expectedStatuses(200, 429));

const phase = (exec, start) => ({
  executor: 'constant-arrival-rate', exec, rate: RATE, timeUnit: '1s', duration: `${PHASE_S}s`,
  startTime: `${start}s`, preAllocatedVUs: 20, maxVUs: 100,
});

export const options = {
  scenarios: { hot: phase('hot', 0), spread: phase('spread', PHASE_S + 3) },
  thresholds: {
    'throttled_429{scenario:hot}': ['count>=0'],
    'throttled_429{scenario:spread}': ['count>=0'],
    'served_200{scenario:hot}': ['count>=0'],
    'served_200{scenario:spread}': ['count>=0'],
    'ru_per_request{scenario:hot}': ['avg>=0'],
    'ru_per_request{scenario:spread}': ['avg>=0'],
    'http_req_duration{scenario:hot}': ['p(95)>=0'],
    'http_req_duration{scenario:spread}': ['p(95)>=0'],
    // Anything but 200 and 429 is a failure.
    http_req_failed: ['rate<0.01'],
  },
  summaryTrendStats: ['avg', 'med', 'p(95)', 'p(99)', 'max'],
};

export function setup() {
  const home = http.get(`${BASE}/`);
  const ids = [...new Set([...(home.body || '').matchAll(/href="\/posts\/([A-Za-z0-9_.-]+)"/g)].map((m) => m[1]))]
    .filter((id) => id !== 'new');
  if (ids.length < 10) throw new Error(`setup: only ${ids.length} posts on ${BASE}/`);
  return { ids };
}

function visit(id) {
  const r = http.get(`${BASE}/posts/${id}`, { tags: { name: '/posts/{id}' } });
  check(r, { '200 or 429': (x) => x.status === 200 || x.status === 429 });
  if (r.status === 429) {
    throttled.add(1);
    check(r, { '429 says when to retry': (x) => !!x.headers['Retry-After'] });
  } else if (r.status === 200) {
    served.add(1);
    ru.add(Number(r.headers['X-Ms-Request-Charge'] || 0));
  }
}

export function hot(data) {
  visit(data.ids[0]);
}

export function spread(data) {
  visit(data.ids[Math.floor(Math.random() * data.ids.length)]);
}

export function teardown() {
  if (!__ENV.METRICS_URL) return;
  const r = http.get(__ENV.METRICS_URL);
  const lines = (r.body || '').split('\n').filter((l) => !l.startsWith('#') && l.includes('posts') && /throttl|429|ru/i.test(l));
  console.log(`engine metrics for posts (${__ENV.METRICS_URL}):\n${lines.slice(0, 80).join('\n')}`);
}

export function handleSummary(summary) {
  const m = summary.metrics;
  const v = (name, s, stat) => ((m[`${name}{scenario:${s}}`] || { values: {} }).values[stat] || 0);
  const row = (s) => {
    const ok = v('served_200', s, 'count');
    const no = v('throttled_429', s, 'count');
    const pct = ok + no ? (100 * no) / (ok + no) : 0;
    return `| ${s} | ${((ok + no) / PHASE_S).toFixed(1)} | ${(ok / PHASE_S).toFixed(1)} | ${no} (${pct.toFixed(0)}%) | ${v('ru_per_request', s, 'avg').toFixed(2)} | ${v('http_req_duration', s, 'p(95)').toFixed(2)} |`;
  };
  const md = [
    `Hot partition on ${BASE}: ${RATE} req/s of post pages for ${PHASE_S} s per phase; hot = one post (one logical partition), spread = the feed's posts.`,
    '',
    '| phase | sent/s | served/s | 429s | RU per served page | p95 ms |',
    '|---|---:|---:|---:|---:|---:|',
    row('hot'),
    row('spread'),
    '',
  ].join('\n');
  return {
    stdout: `\n${md}\n`,
    [`${RESULTS_DIR}/hot-partition.md`]: md,
    [`${RESULTS_DIR}/hot-partition.json`]: JSON.stringify(summary.metrics, null, 2),
  };
}
