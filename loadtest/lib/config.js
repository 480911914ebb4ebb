// Profiles, environment variables and the open-model scenario builder shared by the scripts.
//
//   PROFILE     smoke (default, <= 30 s, CI) | load (~3 min) | soak (10 min)
//   BASE_URL    the site under test (each script has its own default)
//   RATE_SCALE  multiplies every arrival rate (default 1), e.g. 2 to push harder
//   DURATION    overrides the steady-state duration of the profile (e.g. 60s, 5m)
//   RUN_ID      makes account names unique across runs (default: derived from the clock)

export const PROFILE = (__ENV.PROFILE || 'smoke').toLowerCase();

const PROFILES = {
  // Constant low rate; setup + 20 s + graceful stop stays well under 30 s.
  smoke: { executor: 'constant-arrival-rate', duration: '20s', gracefulStop: '5s' },
  // Ramp up for 30 s, hold 2 min, ramp down 20 s.
  load: { executor: 'ramping-arrival-rate', rampUp: '30s', duration: '2m', rampDown: '20s', gracefulStop: '10s' },
  // Ten minutes at a constant rate.
  soak: { executor: 'constant-arrival-rate', duration: '10m', gracefulStop: '10s' },
};

if (!PROFILES[PROFILE]) {
  throw new Error(`PROFILE=${PROFILE}: expected one of ${Object.keys(PROFILES).join(', ')}`);
}

export const RATE_SCALE = Number(__ENV.RATE_SCALE || 1);

/** The site's root, without a trailing slash. */
export function baseUrl(fallback) {
  return (__ENV.BASE_URL || fallback).replace(/\/+$/, '');
}

/** A value per profile: `perProfile({smoke: 2, load: 20, soak: 10})`. */
export function perProfile(values) {
  if (!(PROFILE in values)) throw new Error(`no value for profile ${PROFILE}`);
  return values[PROFILE];
}

// Arrival rates are given per second (fractions allowed) and sent to k6 per minute, so that
// "one admin visit every five seconds" is simply 0.2.
function perMinute(perSecond) {
  return Math.max(1, Math.round(perSecond * 60 * RATE_SCALE));
}

/**
 * An open-model scenario for the current profile: new iterations start at `rate` per second
 * whether or not earlier ones have finished (k6 adds VUs up to `maxVUs` when the server slows).
 *
 *   arrival({ exec: 'browse', rate: { smoke: 3, load: 30, soak: 20 }, vus: 10, maxVUs: 60 })
 *
 * `vus` (pre-allocated VUs) may also be given per profile; k6 initializes more, up to `maxVUs`,
 * when the server slows down (iterations it cannot start in time are `dropped_iterations`).
 */
export function arrival({ exec, rate, vus = 5, maxVUs = 50, tags = {} }) {
  const p = PROFILES[PROFILE];
  const r = perMinute(typeof rate === 'object' ? perProfile(rate) : rate);
  vus = typeof vus === 'object' ? perProfile(vus) : vus;
  const common = {
    exec,
    timeUnit: '1m',
    preAllocatedVUs: vus,
    maxVUs: Math.max(vus, maxVUs),
    gracefulStop: p.gracefulStop,
    tags: { scenario_kind: exec, ...tags },
  };
  const duration = __ENV.DURATION || p.duration;
  if (p.executor === 'ramping-arrival-rate') {
    return {
      ...common,
      executor: 'ramping-arrival-rate',
      startRate: Math.max(1, Math.round(r / 4)),
      stages: [
        { target: r, duration: p.rampUp },
        { target: r, duration },
        { target: 0, duration: p.rampDown },
      ],
    };
  }
  return { ...common, executor: 'constant-arrival-rate', rate: r, duration };
}

/** Runs one of `choices` ([[weight, fn], ...]) picked at random by weight. */
export function weighted(choices) {
  const total = choices.reduce((s, [w]) => s + w, 0);
  let x = Math.random() * total;
  for (const [w, fn] of choices) {
    x -= w;
    if (x < 0) return fn();
  }
  return choices[choices.length - 1][1]();
}

export function randomItem(list) {
  if (!list || list.length === 0) throw new Error('randomItem: empty list');
  return list[Math.floor(Math.random() * list.length)];
}

/** A short id for this run, used in account names (sign-ups must never collide). */
export function newRunId() {
  if (__ENV.RUN_ID) return String(__ENV.RUN_ID).replace(/[^A-Za-z0-9]/g, '').slice(0, 10);
  return (Date.now() % 2176782336).toString(36) + Math.floor(Math.random() * 36).toString(36);
}
