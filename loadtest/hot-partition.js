// The hot partition (001_*: a partition key must spread the load): with provisioned throughput
// on the blog's `posts` container, the same arrival rate is sent first to ONE post's page (one
// logical partition, so one physical partition and its share of the RU/s) and then spread over
// the 100 posts of the home feed (all physical partitions). The hot phase is throttled (429 with
// Retry-After), the spread phase is not.
//
//   cargo run --release -- --throughput blog/posts=3500     # 100 RU/s per physical partition
//   k6 run -e BASE_URL=http://127.0.0.1:8081 loadtest/hot-partition.js
//
// RATE requests/s (default 40), DURATION per phase (default 20s), RESULTS_DIR, METRICS_URL
// (optional: the Data Explorer's /metrics, e.g. http://127.0.0.1:8082/metrics, with EXPLORER_TOKEN
// its token (the demo started with the same EXPLORER_TOKEN, or the token of the Explorer URL it
// printed); then a watcher reads the engine's per-partition counters of DATABASE/posts (DATABASE
// default blog) before, between and after the phases, and the report adds what each phase did to
// each physical partition).

import http from 'k6/http';
import { check, sleep } from 'k6';
import { Counter, Trend } from 'k6/metrics';

const BASE = (__ENV.BASE_URL || 'http://127.0.0.1:8081').replace(/\/+$/, '');
const RATE = Number(__ENV.RATE || 40);
const PHASE_S = Number((__ENV.DURATION || '20s').replace(/s$/, ''));
const RESULTS_DIR = (__ENV.RESULTS_DIR || 'loadtest/results').replace(/\/+$/, '');

const METRICS_URL = __ENV.METRICS_URL || '';
const EXPLORER_TOKEN = __ENV.EXPLORER_TOKEN || '';
const DATABASE = __ENV.DATABASE || 'blog';

const throttled = new Counter('throttled_429');
// From the engine's metrics, per phase: how many physical partitions answered 429s, and the share
// of the container's RU that its busiest partition took.
const throttlingPartitions = new Counter('engine_partitions_throttling');
const busiestShare = new Trend('engine_busiest_partition_ru_share');
const served = new Counter('served_200');
const ru = new Trend('ru_per_request');

http.setResponseCallback(http.expectedStatuses(200, 429));

const phase = (exec, start) => ({
  executor: 'constant-arrival-rate', exec, rate: RATE, timeUnit: '1s', duration: `${PHASE_S}s`,
  startTime: `${start}s`, preAllocatedVUs: 20, maxVUs: 100,
});

const scenarios = { hot: phase('hot', 0), spread: phase('spread', PHASE_S + 3) };
if (METRICS_URL) {
  scenarios.engine = {
    executor: 'per-vu-iterations', exec: 'watch', vus: 1, iterations: 1, maxDuration: `${2 * PHASE_S + 30}s`,
  };
}

export const options = {
  scenarios,
  thresholds: {
    'engine_partitions_throttling{phase:hot}': ['count>=0'],
    'engine_partitions_throttling{phase:spread}': ['count>=0'],
    'engine_busiest_partition_ru_share{phase:hot}': ['avg>=0'],
    'engine_busiest_partition_ru_share{phase:spread}': ['avg>=0'],
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

// The engine's counters of DATABASE/posts per physical partition: { partition: { ru, requests, throttled } }.
function scrape() {
  const r = http.get(METRICS_URL, {
    tags: { name: 'metrics' },
    headers: EXPLORER_TOKEN ? { Authorization: `Bearer ${EXPLORER_TOKEN}` } : {},
  });
  if (r.status === 401 || r.status === 403) {
    throw new Error(
      `${METRICS_URL} answered ${r.status}: set EXPLORER_TOKEN to the explorer's token (start the demo with the same EXPLORER_TOKEN, or take it from the Explorer URL it printed)`,
    );
  }
  const out = {};
  const re = /^engine_(request_units|requests|throttled_requests)_total\{([^}]*)\} (\S+)$/;
  for (const line of (r.body || '').split('\n')) {
    const m = line.match(re);
    if (!m) continue;
    const labels = Object.fromEntries([...m[2].matchAll(/(\w+)="([^"]*)"/g)].map((x) => [x[1], x[2]]));
    if (labels.database !== DATABASE || labels.container !== 'posts') continue;
    const p = (out[labels.partition] = out[labels.partition] || { ru: 0, requests: 0, throttled: 0 });
    p[{ request_units: 'ru', requests: 'requests', throttled_requests: 'throttled' }[m[1]]] = Number(m[3]);
  }
  return out;
}

// What a phase did to each partition, busiest first, as a Markdown table (and two metrics).
function report(phaseName, before, after) {
  const rows = Object.keys(after).map((p) => {
    const b = before[p] || { ru: 0, requests: 0, throttled: 0 };
    return { p, ru: after[p].ru - b.ru, requests: after[p].requests - b.requests, throttled: after[p].throttled - b.throttled };
  }).sort((a, b) => b.ru - a.ru);
  const total = rows.reduce((s, r) => s + r.ru, 0);
  const throttling = rows.filter((r) => r.throttled > 0).length;
  throttlingPartitions.add(throttling, { phase: phaseName });
  busiestShare.add(total ? rows[0].ru / total : 0, { phase: phaseName });
  const lines = [
    `${phaseName} phase, engine metrics of ${DATABASE}/posts (${METRICS_URL}): ${total.toFixed(0)} RU over ${rows.filter((r) => r.requests > 0).length} of ${rows.length} physical partitions, ${throttling} answering 429s; the five busiest:`,
    '',
    '| physical partition | RU | share | engine requests | engine 429s |',
    '|---:|---:|---:|---:|---:|',
    ...rows.slice(0, 5).map((r) => `| ${r.p} | ${r.ru.toFixed(0)} | ${total ? ((100 * r.ru) / total).toFixed(0) : 0}% | ${r.requests} | ${r.throttled} |`),
  ];
  console.log(`\n${lines.join('\n')}\n`);
}

// One VU: reads the counters at the start, in the gap between the phases and after the last.
export function watch() {
  const start = scrape();
  sleep(PHASE_S + 1.5);
  const gap = scrape();
  report('hot', start, gap);
  sleep(PHASE_S + 3);
  report('spread', gap, scrape());
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
  let md = [
    `Hot partition on ${BASE}: ${RATE} req/s of post pages for ${PHASE_S} s per phase; hot = one post (one logical partition), spread = the feed's posts.`,
    '',
    '| phase | sent/s | served/s | 429s | RU per served page | p95 ms |',
    '|---|---:|---:|---:|---:|---:|',
    row('hot'),
    row('spread'),
    '',
  ];
  if (METRICS_URL) {
    const e = (name, s, stat) => ((m[`${name}{phase:${s}}`] || { values: {} }).values[stat] || 0);
    md.push(
      `The engine's per-partition counters of ${DATABASE}/posts (${METRICS_URL}) over each phase:`,
      '',
      '| phase | physical partitions answering 429s | busiest partition\'s share of the RU |',
      '|---|---:|---:|',
      ...['hot', 'spread'].map((s) => `| ${s} | ${e('engine_partitions_throttling', s, 'count')} | ${(100 * e('engine_busiest_partition_ru_share', s, 'avg')).toFixed(0)}% |`),
      '',
    );
  }
  md = md.join('\n');
  return {
    stdout: `\n${md}\n`,
    [`${RESULTS_DIR}/hot-partition.md`]: md,
    [`${RESULTS_DIR}/hot-partition.json`]: JSON.stringify(summary.metrics, null, 2),
  };
}
