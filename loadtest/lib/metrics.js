// Per-pattern metrics: one RU Trend, one latency Trend, an error Counter and a 429 Counter per
// access pattern, plus the run's total RU. Patterns are declared once per script (in the init
// context, where k6 requires metrics to be created) and the same registry drives the thresholds
// and the reports.

import { Counter, Trend } from 'k6/metrics';
import { PROFILE } from './config.js';

/** Every RU of the run, tagged with its pattern. */
export const ruTotal = new Counter('ru_total');

const registry = new Map();

/** `Q1+Q3` -> `q1_q3` (k6 metric names allow letters, digits and `_`). */
export function slug(name) {
  return name.toLowerCase().replace(/[^a-z0-9]+/g, '_').replace(/^_+|_+$/g, '');
}

/**
 * Declares the patterns of a script. Each entry:
 *   name       shown in reports and put in the `pattern` tag of every request
 *   ru         expected RU of one request (the documented figure), or null for "not checked"
 *   ruBy       optional {tag, budgets: {value: ru}}: budgets per value of a sample tag (a cart's
 *              RU depends on its number of lines); overrides `ru`
 *   source     where the figure comes from (shown in the reports)
 *   latencyMs  p(95) latency budget in ms (null: none)
 */
export function definePatterns(list) {
  for (const p of list) {
    const s = slug(p.name);
    if (registry.has(p.name)) throw new Error(`pattern ${p.name} declared twice`);
    for (const other of registry.values()) {
      if (other.slug === s) throw new Error(`patterns ${p.name} and ${other.name} share metric names`);
    }
    registry.set(p.name, {
      ...p,
      slug: s,
      ruMetric: `ru_${s}`,
      latencyMetric: `latency_${s}`,
      errorsMetric: `errors_${s}`,
      throttledMetric: `throttled_${s}`,
      ruTrend: new Trend(`ru_${s}`),
      latencyTrend: new Trend(`latency_${s}`, true),
      errors: new Counter(`errors_${s}`),
      throttled: new Counter(`throttled_${s}`),
    });
  }
}

export function pattern(name) {
  const p = registry.get(name);
  if (!p) throw new Error(`unknown pattern ${name}: declare it with definePatterns`);
  return p;
}

export function patterns() {
  return [...registry.values()];
}

// RU thresholds, two per pattern:
//   <RU_STAT> <= documented figure x RU_MARGIN (1.25): the typical request. The median by
//     default: a request charge is deterministic for a given item, so the spread of a pattern
//     comes from the data (an author with 3 posts or 20 on the page, a post with 0 or 25
//     comments); the median is the typical page and does not flap with the mix.
//   max <= documented figure x RU_MAX_FACTOR (2): no request of the pattern is pathological
//     (a query that silently became a fan-out, an index no longer used).
// RU_STAT=p(95) makes the first check strict about the heavier pages too.
export const RU_MARGIN = Number(__ENV.RU_MARGIN || 1.25);
export const RU_MAX_FACTOR = Number(__ENV.RU_MAX_FACTOR || 2);
export const RU_STAT = __ENV.RU_STAT || 'med';
// Latency budgets are p(95) over the run. A smoke run has a handful of samples per write
// pattern, so its p(95) is nearly the max and one slow fsync of the host disk would fail CI: the
// smoke profile multiplies the budgets by 4 (it checks "nothing hangs"); load and soak use them
// as they are.
export const LATENCY_SCALE = Number(__ENV.LATENCY_SCALE || (PROFILE === 'smoke' ? 4 : 1));

function round2(x) {
  return Math.round(x * 100) / 100;
}

/** The RU limit for a documented figure. */
export function ruLimit(ru) {
  return round2(ru * RU_MARGIN);
}

/** The largest RU any single request of the pattern may cost. */
export function ruMaxLimit(ru) {
  return round2(ru * RU_MAX_FACTOR);
}

function ruRules(ru) {
  return [`${RU_STAT}<=${ruLimit(ru)}`, `max<=${ruMaxLimit(ru)}`];
}

/**
 * The k6 thresholds of every declared pattern, merged into `base`:
 *  - ru_<p>:       <RU_STAT> <= documented RU x 1.25 and max <= documented RU x 2 (per tag
 *                  value for `ruBy` patterns)
 *  - latency_<p>:  p(95) < latencyMs x LATENCY_SCALE
 * Each threshold has at least one sample in every profile only if the mix reaches it; k6
 * passes a threshold whose metric has no sample.
 */
export function patternThresholds(base = {}) {
  const t = { ...base };
  for (const p of registry.values()) {
    if (p.ruBy) {
      for (const [value, ru] of Object.entries(p.ruBy.budgets)) {
        t[`${p.ruMetric}{${p.ruBy.tag}:${value}}`] = ruRules(ru);
      }
    } else if (p.ru !== null && p.ru !== undefined) {
      t[p.ruMetric] = ruRules(p.ru);
    }
    if (p.latencyMs) {
      t[p.latencyMetric] = [`p(95)<${Math.round(p.latencyMs * LATENCY_SCALE)}`];
    }
  }
  return t;
}
