/*
 * wattcast planner page (docs/planner.md). Hand-written, no framework, no
 * build step; it talks to this server's JSON API with fetch only.
 *
 * Feature detection, not version checks: at load the page reads
 * GET /openapi.json and shows a control only when the inference request
 * schema has that property, and a panel only when its path exists. Answers
 * are rendered generically: every number of a prediction is shown, with
 * "[lo, hi]" when interval_95 has an entry of the same name. So a field or
 * endpoint the API gains later appears here without a change; the tables
 * below only give nicer labels, units and order.
 *
 * The script is five classic scripts, one job each, which index.html loads
 * with defer in this order (docs/planner.md, "Serving"): page.js (the
 * tables, helpers, the OpenAPI document and start), form.js (the form, the
 * shareable URL, messages on fields), answers.js (predict, the comparison,
 * the plots), panels.js (panels of newer routes) and calibration.js (the
 * calibration view of the chosen profile's set).
 * Deferred scripts run in document order before DOMContentLoaded and share
 * their top-level declarations, so start() (run on DOMContentLoaded) sees
 * the functions of all five.
 */
'use strict';

/* ------------------------------------------------------------ tables */

/* Controls of the inference request, in form order. A control exists only
 * when the request schema has `name` (the model control: `model` or
 * `active_params_b`). group: 'config' = what a comparison entry pins;
 * 'load' and 'workload' are shared by every compared configuration. */
const FIELDS = [
  { name: 'profile', label: 'Calibration profile', kind: 'profile', group: 'config' },
  { name: 'platform', label: 'Platform', kind: 'platform', group: 'config' },
  { name: 'model', label: 'Model', kind: 'model', group: 'config' },
  { name: 'tp', label: 'Tensor parallel', unit: 'GPUs', kind: 'integer', group: 'config', value: '1' },
  { name: 'weights', label: 'Weight precision', kind: 'enum', group: 'config' },
  { name: 'kv_cache', label: 'KV-cache precision', kind: 'enum', group: 'config' },
  { name: 'sm_clock_mhz', label: 'Locked SM clock', unit: 'MHz', kind: 'number', group: 'config',
    placeholder: 'not locked' },
  /* A cap, the engine's memory share, expert parallelism and the serving
   * stack are the deployment's too: each compared row has its own (a row
   * with a locked clock must not take the form's cap, which the API
   * refuses beside a lock). */
  { name: 'power_cap_w', label: 'Power cap per GPU', unit: 'W', kind: 'number', group: 'config', placeholder: 'no cap' },
  { name: 'gpu_memory_utilization', label: 'GPU memory utilization', kind: 'number', group: 'config',
    placeholder: 'the set’s, 0.9', help: 'the engine’s share of each GPU’s memory (vLLM’s setting)' },
  { name: 'expert_parallel', label: 'Expert parallel (MoE)', kind: 'boolean', group: 'config',
    help: 'experts spread over the TP GPUs' },
  { name: 'engine', label: 'Serving stack', kind: 'string', group: 'config', placeholder: 'vllm',
    help: 'vllm, sglang, …: the numbers are vLLM’s' },
  { name: 'concurrency', label: 'Requests running', unit: 'n', kind: 'number', group: 'load', value: '32',
    help: 'closed loop: requests being served at once' },
  { name: 'rate', label: 'Arrival rate', unit: 'requests/s', kind: 'number', group: 'load',
    help: 'open loop: requests arriving per second' },
  { name: 'input_tokens', label: 'Input tokens', unit: 'per request', kind: 'integer', group: 'workload', value: '512',
    help: 'prompt length: with the output length it gives latency, throughput and energy' },
  { name: 'output_tokens', label: 'Output tokens', unit: 'per request', kind: 'integer', group: 'workload', value: '256' },
  { name: 'price_per_kwh', label: 'Electricity price', unit: 'per kWh', kind: 'number', group: 'workload' },
  { name: 'grams_co2_per_kwh', label: 'Carbon intensity', unit: 'g CO₂/kWh', kind: 'number', group: 'workload' },
];
/* The "Other" model's architecture boxes (form.js architectureControls),
 * in this order: [name, label, unit]; a property the table lacks is shown
 * after them, named after itself. */
const ARCH_LABELS = [
  ['layers', 'Layers', ''], ['kv_heads', 'KV heads', ''], ['head_dim', 'Head size', 'per head'],
  ['d_model', 'Hidden size', ''], ['total_params_b', 'Total parameters', 'B'], ['experts', 'Experts', 'MoE'],
  ['experts_per_token', 'Experts per token', 'MoE'], ['cache_layers', 'Full-attention layers', '0 = all'],
  ['sliding_window', 'Sliding window', 'tokens'],
];
/* Request properties the form never shows (a series is not a form input). */
const NOT_IN_FORM = ['running_series', 'dt_s', 'active_params_b', 'architecture'];
/* A warning or error names the request field; these go to another control. */
const FIELD_ALIASES = { running: 'load', running_series: 'load', dt_s: 'load', active_params_b: 'model' };

/* Labels and units of answer fields; any other number is shown too, named
 * after its key, with the unit read from the key's suffix (UNIT_SUFFIXES). */
const ANSWER_FIELDS = {
  node_power_w: ['Node power', 'W'],
  per_gpu_power_w: ['Power per GPU', 'W'],
  idle_power_w: ['Loaded idle power', 'W'],
  dynamic_power_w: ['Dynamic power', 'W'],
  mean_running: ['Mean requests running', ''],
  latency_s: ['Latency per request', 's'],
  ttft_s: ['Time to first token', 's'],
  throughput_tok_s: ['Output throughput', 'tokens/s'],
  energy_per_output_token_j: ['Energy per output token', 'J'],
  energy_per_request_j: ['Energy per request', 'J'],
  energy_per_hour_kwh: ['Energy per hour', 'kWh'],
  max_concurrency_fit: ['Most requests that fit in memory', ''],
  rate: ['Arrival rate', 'requests/s'],
};
/* Answer fields whose leaf name alone is ambiguous ("per_request" under
 * cost and under CO₂, "stat" and "stat_w" of a budget's plan), by their
 * full path: [label, unit, the name of their interval in the block's
 * interval_95 when it is not the leaf's (docs/http-api.md, "capacity")]. */
const PATH_LABELS = {
  'capacity.input_tokens': ['Input tokens per request', 'tokens'],
  'capacity.output_tokens': ['Output tokens per request', 'tokens'],
  'capacity.rate': ['Arrival rate', 'requests/s'],
  'capacity.capacity_rate': ['Capacity: the most requests/s it serves', 'requests/s'],
  'capacity.over_capacity': ['Over capacity (arrivals above the capacity)', ''],
  'capacity.cost.price_per_kwh': ['Electricity price', 'price units/kWh'],
  'capacity.cost.per_request': ['Cost per request', 'price units', 'cost_per_request'],
  'capacity.cost.per_hour': ['Cost per hour', 'price units', 'cost_per_hour'],
  'capacity.cost.per_million_output_tokens': ['Cost per million output tokens', 'price units', 'cost_per_million_tokens'],
  'capacity.co2_g.grams_co2_per_kwh': ['Carbon intensity', 'g CO₂/kWh'],
  'capacity.co2_g.per_request': ['CO₂ per request', 'g', 'co2_g_per_request'],
  'capacity.co2_g.per_hour': ['CO₂ per hour', 'g', 'co2_g_per_hour'],
  'capacity.co2_g.per_million_output_tokens': ['CO₂ per million output tokens', 'g', 'co2_g_per_million_tokens'],
  /* group totals: every GPU of the tensor-parallel group */
  'capacity.memory.need_gb': ['Memory needed (weights and KV cache, all GPUs)', 'GB'],
  'capacity.memory.available_gb': ['Memory the engine takes (all GPUs)', 'GB'],
  'capacity.memory.workspace_gb': ['of which its workspace', 'GB'],
  /* a budget's plan (docs/http-api.md, "Fleet power budget") */
  'plan.budget_w': ['Plan: budget', 'W'],
  'plan.stat': ['Plan: statistic budgeted', ''],
  'plan.fleet_size': ['Plan: fleet size', 'servers'],
  'plan.max_fleet': ['Plan: largest fleet considered', 'servers'],
  'plan.search_bound': ['Plan: largest fleet the search could probe', 'servers'],
  'plan.stopped_by': ['Plan: what stopped the search', ''],
  'plan.stat_w': ['Plan: the statistic at the fleet size', 'W'],
  'plan.next_stat_w': ['Plan: the statistic with one server more', 'W'],
  'plan.stat_interval_95.lo': ['Plan: the statistic’s 95 % predictive interval, low end', 'W'],
  'plan.stat_interval_95.hi': ['Plan: the statistic’s 95 % predictive interval, high end', 'W'],
  'plan.servers_simulated': ['Servers simulated to plan', 'servers'],
  'plan.seconds': ['Time the server took to plan', 's'],
};
const UNIT_SUFFIXES = [['_w_per_gpu', 'W per GPU'], ['_j_per_tflop', 'J/TFLOP'], ['_tflop', 'TFLOP'],
  ['_tok_s', 'tokens/s'], ['_kwh', 'kWh'], ['_mhz', 'MHz'], ['_gb', 'GB'], ['_w', 'W'],
  ['_j', 'J'], ['_s', 's'], ['_g', 'g'], ['_b', 'B'], ['_pct', '%']];
/* Answer keys that are not quantities. */
const ANSWER_SKIP = ['interval_95', 'warnings', 'params_version', 'config', 'profile'];

/* Quantities plotted against concurrency, each when the answers have it. */
const CURVES = [
  { field: 'node_power_w', title: 'Node power vs requests running', y: 'node power (W)', ylog: false },
  { field: 'energy_per_output_token_j', title: 'Energy per output token vs requests running',
    y: 'energy per output token (J)', ylog: true },
];
/* Quantities in the comparison table, each when the answers have it. */
const COMPARE_FIELDS = ['node_power_w', 'energy_per_output_token_j', 'latency_s', 'throughput_tok_s'];
/* Concurrency grid of the curves: 1 to 256 in quarter octaves, on to the
 * first quarter octave at or past the form's n when that is above 256, so
 * that the load is on the axis and marked (docs/planner.md, "Plots"). The
 * axis ends at the API's limit on n (the request schema's `maximum`,
 * docs/http-api.md, "Limits"), a point past it being refused: n = 1e6
 * ends at 1e6, not 2^20. */
function gridTo(n) {
  const last = Math.max(32, Number.isFinite(n) && n > 0 ? Math.ceil(4 * Math.log2(n) - 1e-9) : 0);
  const grid = Array.from({ length: last + 1 }, (_, k) => Math.pow(2, k / 4));
  const max = S.request && S.request.concurrency ? Number(S.request.concurrency.maximum) : NaN;
  if (!Number.isFinite(max) || grid[grid.length - 1] <= max) return grid;
  const kept = grid.filter((x) => x < max);
  return [...kept, max];
}
const MAX_COMPARE = 4;
const COLORS = ['#0072b2', '#d55e00', '#009e73', '#cc79a7', '#8c6d00'];
const DASHES = ['', '6 3', '2 3', '8 3 2 3', '1 2'];

/* Endpoints that get a panel when the API has them. The panel's form is
 * built from the request schema (prefilled from the document's example);
 * fields the configuration above already has are taken from it, and those
 * the route does not take are named under the panel (docs/planner.md).
 * `ignores`: fields the route takes but answers nothing for (no cost or
 * CO₂: docs/capacity.md, "Power flexibility"; docs/envelopes.md), so the
 * panel neither sends them nor lists them. */
const NO_COST = ['price_per_kwh', 'grams_co2_per_kwh'];
const PANELS = [
  { path: '/v1/forecast/envelope', title: 'Power envelope of a workload', useConfig: true, ignores: NO_COST },
  { path: '/v1/plan/budget', title: 'Fleet power budget', useConfig: true, ignores: NO_COST },
  { path: '/v1/predict/finetune', title: 'Fine-tuning energy', useConfig: false },
  /* The sweep's own view (panels.js flexView): the plot of node power
   * against throughput with its knee, as docs/capacity.md draws it. */
  { path: '/v1/predict/flexibility', title: 'Power flexibility', useConfig: true, ignores: NO_COST,
    render: (p, a) => flexView(p, a) },
];

/* Sources of parameter values (docs/formats/params-file.md). */
const SOURCES = {
  published: 'transcribed from a paper',
  fitted: 'estimated by wattcast fit',
  measured: 'idle power from the runs’ telemetry',
  estimated: 'derived from published aggregates',
  assumed: 'a stated default, neither published nor fitted',
  calibrated: 'estimated by wattcast calibrate from a few runs',
  bound: 'a fit ended at a physical bound and holds the parameter there',
  datasheet: 'transferred from the platform catalog for a platform without a fitted level',
  simulated: 'idle power from a synthetic runs table, not a measurement',
};

/* ------------------------------------------------------------ helpers */

const $ = (id) => document.getElementById(id);

function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === 'text') e.textContent = v;
    else if (k === 'class') e.className = v;
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v === true ? '' : v);
  }
  for (const kid of kids.flat()) if (kid !== null && kid !== undefined) e.append(kid);
  return e;
}

const SVGNS = 'http://www.w3.org/2000/svg';
function svg(tag, attrs, ...kids) {
  const e = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs || {}))
    if (v !== null && v !== undefined) e.setAttribute(k, v);
  for (const kid of kids.flat()) if (kid) e.append(kid);
  return e;
}

/* The displayed precision: whole numbers as they are, four significant
 * digits below 1000 (trailing zeros dropped), none after the point from
 * 1000 on. A number below 10⁻³ is written with an exponent (1.506e-6), and
 * so is every number of its group (an estimate and its interval: `sci`,
 * from sciGroup), so one row never mixes 0.000001506 with 8.576e-7
 * (docs/planner.md, "Answer"). */
function fmt(x, sci) {
  if (typeof x !== 'number' || !Number.isFinite(x)) return String(x);
  const a = Math.abs(x);
  if ((sci || (a > 0 && a < 1e-3)) && x !== 0) return Number(x.toPrecision(4)).toExponential();
  if (Number.isInteger(x) && a < 1e6) return String(x);
  if (a >= 1000) return x.toFixed(0);
  return String(Number(x.toFixed(Math.max(0, 3 - Math.floor(Math.log10(a))))));
}

/* Whether a group of numbers is written with exponents: one of them is. */
function sciGroup(...xs) {
  return xs.flat().some((x) => typeof x === 'number' && Number.isFinite(x) && x !== 0 && Math.abs(x) < 1e-3);
}

/* An interval, in its estimate's notation when `v` is given. */
function fmtInterval(iv, v) {
  if (!(Array.isArray(iv) && iv.length === 2)) return '';
  const sci = sciGroup(iv, v);
  return `[${fmt(iv[0], sci)}, ${fmt(iv[1], sci)}]`;
}

function humanize(key) {
  let k = key;
  for (const [suf] of UNIT_SUFFIXES) if (k.endsWith(suf)) { k = k.slice(0, -suf.length); break; }
  k = k.replace(/_/g, ' ');
  return k.charAt(0).toUpperCase() + k.slice(1);
}

function unitOf(key) {
  for (const [suf, unit] of UNIT_SUFFIXES) if (key.endsWith(suf)) return unit;
  return '';
}

function labelOf(key) {
  return ANSWER_FIELDS[key] ? ANSWER_FIELDS[key][0] : humanize(key);
}

function unitLabel(key) {
  return ANSWER_FIELDS[key] ? ANSWER_FIELDS[key][1] : unitOf(key);
}

/* An answer row's [label, unit]: its path's (PATH_LABELS), else its leaf's
 * after the name of the block `parent` it is in. */
function rowLabel(key, leaf, parent) {
  if (PATH_LABELS[key]) return PATH_LABELS[key].slice(0, 2);
  return [parent ? `${humanize(parent)}: ${labelOf(leaf)}` : labelOf(leaf), unitLabel(leaf)];
}

/* A shown value: a number with its unit; a yes/no for a boolean. */
function shownValue(v, unit, iv) {
  if (typeof v === 'number') return `${fmt(v, sciGroup(v, iv))}${unit ? ` ${unit}` : ''}`;
  if (typeof v === 'boolean') return v ? 'yes' : 'no';
  return String(v);
}

/* A quantity of an answer, [value, interval]: at the top level (power) or
 * in a block of its own (capacity: latency, throughput, energy), with that
 * block's interval. [undefined, undefined] when the answer lacks it. */
function pick(a, field) {
  if (!a) return [undefined, undefined];
  if (typeof a[field] === 'number') return [a[field], (a.interval_95 || {})[field]];
  for (const v of Object.values(a))
    if (v && typeof v === 'object' && !Array.isArray(v) && typeof v[field] === 'number')
      return [v[field], (v.interval_95 || {})[field]];
  return [undefined, undefined];
}

/* An integer typed as digits that a JS number cannot hold (beyond 2^53: a
 * seed goes to 2^63 - 1, docs/http-api.md): sent as those digits, not
 * rounded (docs/planner.md, "Feature detection"). */
class IntText {
  constructor(text) { this.digits = String(text).replace(/^\+/, '').replace(/^(-?)0+(?=\d)/, '$1'); }
  toString() { return this.digits; }
}

/* A request body as JSON, each IntText spliced in as its integer literal
 * (JSON.stringify writes a number no wider than a double). */
function jsonBody(body) {
  const raw = [];
  const text = JSON.stringify(body, (k, v) => (v instanceof IntText ? `\u0000${raw.push(v.digits) - 1}\u0000` : v));
  return text.replace(/"\\u0000(\d+)\\u0000"/g, (m, i) => raw[Number(i)]);
}

/* An API call: {ok, status, body} with the JSON body; a transport failure
 * is status 0 with a message in the API's error shape. */
/* A 503 server_busy (the heavy requests' limit, docs/http-api.md) is
 * asked again after its Retry-After seconds, BUSY_RETRIES times at most;
 * still busy, the answer says how often it was tried (`tries`). */
const BUSY_RETRIES = 3;

async function api(path, body) {
  const init = body === undefined ? {} : {
    method: 'POST', headers: { 'Content-Type': 'application/json' }, body: jsonBody(body),
  };
  for (let tries = 1; ; tries++) {
    try {
      const r = await fetch(path, init);
      let json = null;
      try { json = await r.json(); } catch (e) { json = null; }
      if (r.status === 503 && tries <= BUSY_RETRIES) {
        const h = r.headers.get('Retry-After'), after = h === null ? 1 : Number(h);
        await new Promise((ok) => setTimeout(ok, 1000 * (after >= 0 && after <= 60 ? after : 1)));
        continue;
      }
      return { ok: r.ok, status: r.status, body: json, tries };
    } catch (e) {
      return { ok: false, status: 0, body: { error: { message: `cannot reach the server (${e.message})` } }, tries };
    }
  }
}

/* A refusal in page terms: a busy server (503) after the retries says
 * what the planner can do. */
function refusalText(r) {
  return r.status === 503 ? `the server was busy with other heavy requests (tried ${r.tries} times); `
    + 'press the button again in a moment' : `the server answered ${r.status || 'nothing'}`;
}

/* ------------------------------------------------------- the document */

const S = {
  doc: null, params: null, models: [], profiles: null, defaultProfile: null, request: null, controls: {},
  compare: [], waiting: [], runs: 0, generation: 0,
  /* inputState() of the inputs last sent, and the status the stale mark
   * covered, whether the inputs differ from those, and whether an answer
   * is on screen (answers.js markStale) */
  asked: null, shownStatus: null, changed: false, answered: false,
  /* the panels (panels.js): {p, out, config: the form's request they answered} */
  panels: [], panelFollow: [],
  /* the profile the calibration view shows ('' = the default) and its
   * fetch's generation, so that a slower answer never replaces a newer */
  calProfile: '', calGeneration: 0,
  /* the platforms a request may name (GET /v1/platforms), for the
   * profile platProfile ('' = the default) */
  platforms: [], platProfile: '', platGeneration: 0,
  /* the set of profile `profile` as GET /v1/params answered it (body;
   * null while it is read or when it could not be): calibration.js */
  set: null,
};

function resolve(node) {
  for (let i = 0; i < 8 && node && node.$ref; i++) {
    node = node.$ref.replace(/^#\//, '').split('/').reduce((o, k) => (o ? o[k] : undefined), S.doc);
  }
  return node || {};
}

function requestMedia(path) {
  const op = S.doc && S.doc.paths && S.doc.paths[path] && S.doc.paths[path].post;
  return op && op.requestBody && op.requestBody.content && op.requestBody.content['application/json'];
}

/* Properties of a request schema, through $ref and allOf. */
function schemaProperties(schema) {
  const s = resolve(schema);
  const props = Object.assign({}, s.properties || {});
  for (const sub of s.allOf || []) Object.assign(props, schemaProperties(sub));
  for (const k of Object.keys(props)) props[k] = resolve(props[k]);
  return props;
}

function hasPath(path) { return !!(S.doc && S.doc.paths && S.doc.paths[path]); }

/* --------------------------------------------------------------- start */

async function start() {
  const [doc, params, models] = await Promise.all([api('/openapi.json'), api('/v1/params'), api('/v1/models')]);
  if (!doc.ok || !params.ok) {
    $('load-error').hidden = false;
    $('load-error').textContent = `The API could not be read: ${((doc.ok ? params : doc).body || {}).error?.message || 'no answer'}`;
    return;
  }
  S.doc = doc.body;
  S.params = params.body.params;
  S.models = models.ok ? models.body.models : [];
  /* Every board the catalog knows, not only the set's levels; a server
   * without the route offers the levels. */
  const plats = hasPath('/v1/platforms') ? await api('/v1/platforms') : { ok: false };
  S.platforms = plats.ok ? plats.body.platforms : S.params.levels.map((l) => ({ name: l.name, answered_from: 'level' }));
  if (hasPath('/v1/profiles')) {
    const pr = await api('/v1/profiles');
    if (pr.ok) { S.profiles = pr.body.profiles || []; S.defaultProfile = pr.body.default || null; }
  }
  buildForm();
  /* the header line and the Platform help follow the chosen profile's set from here */
  renderCalibration(params.body);
  for (const p of PANELS) if (hasPath(p.path)) buildPanel(p);
  const { req, cmp, waiting } = parseQuery(location.search);
  S.compare = cmp;
  S.waiting = waiting;
  setForm(req);
  $('form').addEventListener('submit', (ev) => { ev.preventDefault(); predict(true); });
  $('add-compare').addEventListener('click', addCompare);
  for (const t of ['input', 'change']) $('form').addEventListener(t, markStale);
  $('copy-link').addEventListener('click', async () => {
    $('share-link').select();
    try { await navigator.clipboard.writeText($('share-link').value); $('copy-link').textContent = 'Copied'; } catch (e) { /* selected: copy by hand */ }
  });
  let pending = 0;
  window.addEventListener('resize', () => {
    cancelAnimationFrame(pending);
    pending = requestAnimationFrame(() => { for (const f of document.querySelectorAll('figure.plot')) if (f.redraw) f.redraw(); });
  });
  document.body.dataset.ready = 'true';
  predict(Object.keys(req).length > 0);
}

document.addEventListener('DOMContentLoaded', start);
