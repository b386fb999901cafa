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
/* Request properties the form never shows (a series is not a form input). */
const NOT_IN_FORM = ['running_series', 'dt_s', 'active_params_b', 'architecture'];
/* A warning or error names the request field; these go to another control. */
const FIELD_ALIASES = { running: 'load', running_series: 'load', dt_s: 'load', concurrency: 'load',
  rate: 'load', active_params_b: 'model' };

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
};
/* Nested answer fields whose leaf name alone is ambiguous ("per_request"
 * under cost and under CO₂), by their full path. */
const PATH_LABELS = {
  'capacity.cost.price_per_kwh': ['Electricity price', 'price units/kWh'],
  'capacity.cost.per_request': ['Cost per request', 'price units'],
  'capacity.cost.per_hour': ['Cost per hour', 'price units'],
  'capacity.cost.per_million_output_tokens': ['Cost per million output tokens', 'price units'],
  'capacity.co2_g.grams_co2_per_kwh': ['Carbon intensity', 'g CO₂/kWh'],
  'capacity.co2_g.per_request': ['CO₂ per request', 'g'],
  'capacity.co2_g.per_hour': ['CO₂ per hour', 'g'],
  'capacity.co2_g.per_million_output_tokens': ['CO₂ per million output tokens', 'g'],
  /* group totals: every GPU of the tensor-parallel group */
  'capacity.memory.need_gb': ['Memory needed (weights and KV cache, all GPUs)', 'GB'],
  'capacity.memory.available_gb': ['Memory the engine takes (all GPUs)', 'GB'],
  'capacity.memory.workspace_gb': ['of which its workspace', 'GB'],
};
const UNIT_SUFFIXES = [['_tok_s', 'tokens/s'], ['_kwh', 'kWh'], ['_mhz', 'MHz'], ['_gb', 'GB'], ['_w', 'W'],
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
/* Concurrency grid of the curves: 1 to 256 in quarter octaves. */
const GRID = Array.from({ length: 33 }, (_, k) => Math.pow(2, k / 4));
const MAX_COMPARE = 4;
const COLORS = ['#0072b2', '#d55e00', '#009e73', '#cc79a7', '#8c6d00'];
const DASHES = ['', '6 3', '2 3', '8 3 2 3', '1 2'];

/* Endpoints that get a panel when the API has them. The panel's form is
 * built from the request schema (prefilled from the document's example);
 * fields the configuration above already has are taken from it. */
const PANELS = [
  { path: '/v1/forecast/envelope', title: 'Power envelope of a workload', useConfig: true },
  { path: '/v1/plan/budget', title: 'Fleet power budget', useConfig: true },
  { path: '/v1/predict/finetune', title: 'Fine-tuning energy', useConfig: false },
];

/* Sources of parameter values (docs/formats/params-file.md). */
const SOURCES = {
  published: 'transcribed from a paper',
  fitted: 'estimated by wattcast fit',
  measured: 'idle power from the runs’ telemetry',
  estimated: 'derived from published aggregates',
  assumed: 'a stated default, neither published nor fitted',
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
 * 1000 on. */
function fmt(x) {
  if (typeof x !== 'number' || !Number.isFinite(x)) return String(x);
  const a = Math.abs(x);
  if (Number.isInteger(x) && a < 1e6) return String(x);
  if (a >= 1000) return x.toFixed(0);
  if (a >= 1e-3) return String(Number(x.toFixed(Math.max(0, 3 - Math.floor(Math.log10(a))))));
  return x.toPrecision(3);
}

function fmtInterval(iv) {
  return Array.isArray(iv) && iv.length === 2 ? `[${fmt(iv[0])}, ${fmt(iv[1])}]` : '';
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

/* An API call: {ok, status, body} with the JSON body; a transport failure
 * is status 0 with a message in the API's error shape. */
async function api(path, body) {
  const init = body === undefined ? {} : {
    method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body),
  };
  try {
    const r = await fetch(path, init);
    let json = null;
    try { json = await r.json(); } catch (e) { json = null; }
    return { ok: r.ok, status: r.status, body: json };
  } catch (e) {
    return { ok: false, status: 0, body: { error: { message: `cannot reach the server (${e.message})` } } };
  }
}

/* ------------------------------------------------------- the document */

const S = {
  doc: null, params: null, models: [], profiles: null, request: null, controls: {},
  compare: [], runs: 0, generation: 0,
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

/* ------------------------------------------------------------- the form */

function fieldBox(name, label, unit, control, help) {
  const id = control.id;
  const ids = [`${id}-help`, `${id}-error`, `${id}-warn`];
  control.setAttribute('aria-describedby', ids.join(' '));
  return el('div', { class: 'field', 'data-field': name },
    el('label', { for: id }, label, unit ? el('span', { class: 'unit', text: ` (${unit})` }) : null),
    control,
    el('p', { id: ids[0], class: 'help', text: help || '' }),
    el('p', { id: ids[1], class: 'field-error', 'aria-live': 'assertive' }),
    el('ul', { id: ids[2], class: 'warnings' }));
}

function selectOf(id, options, value) {
  const s = el('select', { id, name: id });
  for (const o of options) {
    const [v, text] = Array.isArray(o) ? o : [o, o];
    s.append(el('option', { value: v, text, selected: value !== undefined && v === value }));
  }
  return s;
}

function numberInput(id, f, schema) {
  return el('input', {
    id, name: id, type: 'number', inputmode: f.kind === 'integer' ? 'numeric' : 'decimal',
    step: f.kind === 'integer' ? '1' : 'any', min: schema && schema.minimum,
    placeholder: f.placeholder || '', value: f.value || '',
  });
}

/* One control of FIELDS (or a generic one for a property the table does
 * not know). Returns the field box or null when the API lacks it. */
function buildControl(f, props) {
  const p = props[f.name];
  const id = `f-${f.name}`;
  if (f.kind === 'model') {
    if (!props.model && !props.active_params_b) return null;
    const opts = props.model ? S.models.map((m) => [m.name, `${m.name} (${fmt(m.active_params_b)} B)`]) : [];
    if (props.active_params_b) opts.push(['', 'Other: give active parameters']);
    const sel = selectOf(id, opts, opts.some((o) => o[0] === 'Qwen3-8B') ? 'Qwen3-8B' : undefined);
    const ap = el('input', { id: 'f-active_params_b', name: 'active_params_b', type: 'number', step: 'any',
      min: '0', inputmode: 'decimal', 'aria-label': 'Active parameters (B)', placeholder: 'active parameters, B' });
    const box = fieldBox('model', f.label, '', sel, '');
    box.insertBefore(ap, box.querySelector('.help'));
    const sync = () => {
      ap.hidden = sel.value !== '';
      const m = S.models.find((x) => x.name === sel.value);
      box.querySelector('.help').textContent = m ? `${m.architecture}, ${fmt(m.active_params_b)} B active of ${fmt(m.total_params_b)} B` : 'active parameters, billions';
    };
    sel.addEventListener('change', sync);
    S.controls.model = { f, box, get: () => (sel.value ? { model: sel.value } : valueOf(ap, 'number', 'active_params_b')),
      set: (req) => {
        if (req.model !== undefined) {
          if (![...sel.options].some((o) => o.value === req.model)) sel.append(el('option', { value: req.model, text: req.model }));
          sel.value = req.model;
        } else if (req.active_params_b !== undefined && props.active_params_b) {
          sel.value = ''; ap.value = req.active_params_b;
        }
        sync();
      }, focus: () => (sel.value ? sel : ap).focus(), inputs: [sel, ap] };
    sync();
    return box;
  }
  if (!p) return null;
  let control;
  if (f.kind === 'platform') control = selectOf(id, S.params.levels.map((l) => l.name));
  else if (f.kind === 'profile') control = selectOf(id, [['', 'default'], ...(S.profiles || []).map((x) => x.name || x)]);
  else if (p.enum) control = selectOf(id, p.enum, p.default);
  else if (p.type === 'boolean') control = el('input', { id, name: id, type: 'checkbox' });
  else if (['number', 'integer'].includes([].concat(p.type)[0])) control = numberInput(id, f, p);
  else control = el('input', { id, name: id, type: 'text', value: f.value || '' });
  const box = fieldBox(f.name, f.label, f.unit, control, f.help || (f.generic ? p.description : ''));
  const kind = p.enum ? 'string' : p.type === 'boolean' ? 'boolean' : [].concat(p.type)[0];
  /* A value at the API's default is left out of the request and the URL. */
  const dflt = p.default !== undefined ? String(p.default) : null;
  S.controls[f.name] = { f, box, get: () => (control.value === dflt ? {} : valueOf(control, kind, f.name)),
    set: (req) => { if (req[f.name] !== undefined) setValue(control, req[f.name]); },
    reset: () => { if (control.tagName === 'SELECT') control.selectedIndex = Math.max(0, [...control.options].findIndex((o) => o.defaultSelected)); else control.value = f.value || ''; },
    focus: () => control.focus(), inputs: [control] };
  if (f.kind === 'platform') {
    control.addEventListener('change', platformHelp);
  }
  return box;
}

function setValue(control, v) {
  if (control.type === 'checkbox') control.checked = v === true || v === 'true';
  else {
    if (control.tagName === 'SELECT' && ![...control.options].some((o) => o.value === String(v)))
      control.append(el('option', { value: String(v), text: String(v) }));
    control.value = String(v);
  }
}

/* A control's request entry: {} when empty, {name: value}; text that is
 * not a number is kept as text so the API names the problem. */
function valueOf(control, kind, name) {
  if (control.hidden || control.disabled) return {};
  if (kind === 'boolean') return control.checked ? { [name]: true } : {};
  if (control.validity && control.validity.badInput) return { [name]: '(not a number)' };
  const v = control.value.trim();
  if (v === '') return {};
  if (kind === 'number' || kind === 'integer') {
    const x = Number(v);
    return { [name]: Number.isFinite(x) ? x : v };
  }
  return { [name]: v };
}

function platformHelp() {
  const c = S.controls.platform;
  if (!c) return;
  const lvl = S.params.levels.find((l) => l.name === c.inputs[0].value);
  const r = lvl && lvl.range;
  const parts = [];
  if (r && r.tp) parts.push(`TP ${r.tp[0]}–${r.tp[1]}`);
  if (r && r.running) parts.push(`n ${fmt(r.running[0])}–${fmt(r.running[1])}`);
  if (r && r.active_params_b) parts.push(`${fmt(r.active_params_b[0])}–${fmt(r.active_params_b[1])} B`);
  $('f-platform-help').textContent = parts.length ? `calibrated on ${parts.join(', ')}` : '';
}

/* The load: concurrency, or an arrival rate when the API takes one. */
function buildLoad(props) {
  const both = props.concurrency && props.rate;
  const boxes = FIELDS.filter((f) => f.group === 'load').map((f) => buildControl(f, props)).filter(Boolean);
  if (!both) return boxes;
  const mode = el('fieldset', { class: 'load-mode' }, el('legend', { text: 'Load' }),
    ['concurrency', 'rate'].map((m) => el('label', {},
      el('input', { type: 'radio', name: 'load-mode', value: m, checked: m === 'concurrency',
        onchange: syncLoad }), m === 'concurrency' ? ' closed loop' : ' open loop')));
  return [mode, ...boxes];
}

function loadMode() {
  const r = document.querySelector('input[name="load-mode"]:checked');
  return r ? r.value : 'concurrency';
}

function syncLoad() {
  const mode = loadMode();
  for (const name of ['concurrency', 'rate']) {
    const c = S.controls[name];
    if (c) { c.box.hidden = mode !== name && !!S.controls.rate; c.inputs[0].disabled = c.box.hidden; }
  }
}

function buildForm() {
  const props = schemaProperties(requestMedia('/v1/predict/inference').schema);
  S.request = props;
  const root = $('fields');
  const groups = { config: el('fieldset', {}, el('legend', { text: 'Server and model' })),
    load: el('fieldset', {}, el('legend', { text: 'Load' })),
    workload: el('fieldset', {}, el('legend', { text: 'Workload and prices' })) };
  for (const f of FIELDS.filter((x) => x.group === 'config')) {
    if (f.kind === 'profile' && !S.profiles) continue;
    const box = buildControl(f, props);
    if (box) groups.config.append(box);
  }
  groups.load.append(...buildLoad(props));
  for (const f of FIELDS.filter((x) => x.group === 'workload')) {
    const box = buildControl(f, props);
    if (box) groups.workload.append(box);
  }
  /* Request properties this page has no entry for still get a control. */
  const known = new Set([...FIELDS.map((f) => f.name), ...NOT_IN_FORM]);
  for (const name of Object.keys(props).filter((n) => !known.has(n))) {
    const f = { name, label: humanize(name), unit: unitOf(name), kind: 'generic', group: 'workload', generic: true };
    FIELDS.push(f);
    const box = buildControl(f, props);
    if (box) groups.workload.append(box);
  }
  root.append(groups.config, groups.load);
  if (groups.workload.children.length > 1) root.append(groups.workload);
  /* A shared "load" slot for messages about the running count. */
  S.controls.load = { get: () => ({}), set: () => {}, focus: () => (S.controls[loadMode()] || S.controls.concurrency).focus(),
    get box() { return (S.controls[loadMode()] || S.controls.concurrency).box; } };
  syncLoad();
  platformHelp();
}

/* The request of the form, and its split into configuration and load. */
function formRequest() {
  const req = {};
  for (const f of FIELDS) if (S.controls[f.name]) Object.assign(req, S.controls[f.name].get());
  return req;
}

function configPart(req) {
  const out = {};
  for (const [k, v] of Object.entries(req)) if (groupOf(k) === 'config') out[k] = v;
  return out;
}

function sharedPart(req) {
  const out = {};
  for (const [k, v] of Object.entries(req)) if (groupOf(k) !== 'config') out[k] = v;
  return out;
}

function groupOf(name) {
  if (name === 'active_params_b') return 'config';
  const f = FIELDS.find((x) => x.name === name);
  return f ? f.group : 'workload';
}

/* Put a request into the form; configuration fields it lacks go back to
 * their defaults (a loaded comparison entry is the whole configuration). */
function setForm(req) {
  for (const f of FIELDS) {
    const c = S.controls[f.name];
    if (!c) continue;
    if (f.group === 'config' && f.kind !== 'model' && req[f.name] === undefined) c.reset();
    c.set(req);
  }
  const lm = req.rate !== undefined ? 'rate' : 'concurrency';
  const radio = document.querySelector(`input[name="load-mode"][value="${lm}"]`);
  if (radio) radio.checked = true;
  syncLoad();
  platformHelp();
}

/* ------------------------------------------------- the URL (shareable) */

/* Query: the request's fields by their API names, plus one `cmp` per
 * compared configuration as "key:value;key:value". */
function enc(s) {
  return encodeURIComponent(s).replace(/%3A/g, ':').replace(/%3B/g, ';').replace(/%2C/g, ',').replace(/%2F/g, '/');
}

function stateQuery(req) {
  const parts = Object.entries(req).map(([k, v]) => `${enc(k)}=${enc(String(v))}`);
  for (const c of S.compare)
    parts.push(`cmp=${enc(Object.entries(c).map(([k, v]) => `${k}:${v}`).join(';'))}`);
  return parts.join('&');
}

function typed(name, text) {
  const p = S.request[name];
  const t = p && [].concat(p.type)[0];
  if ((t === 'number' || t === 'integer') && text.trim() !== '' && Number.isFinite(Number(text))) return Number(text);
  if (t === 'boolean') return text === 'true';
  return text;
}

function parseQuery(search) {
  const q = new URLSearchParams(search);
  const req = {};
  const cmp = [];
  for (const [k, v] of q) {
    if (k === 'cmp') {
      const c = {};
      for (const kv of v.split(';')) {
        const i = kv.indexOf(':');
        if (i > 0) c[kv.slice(0, i)] = typed(kv.slice(0, i), kv.slice(i + 1));
      }
      if (Object.keys(c).length && cmp.length < MAX_COMPARE) cmp.push(c);
    } else if (S.request[k]) {
      req[k] = typed(k, v);
    }
  }
  return { req, cmp };
}

function updateLink(req, push) {
  const query = stateQuery(req);
  const url = `${location.origin}${location.pathname}${query ? '?' + query : ''}`;
  $('share-link').value = url;
  if (push) history.replaceState(null, '', url);
}

/* ------------------------------------------------- messages on fields */

/* The control a field name or JSON pointer concerns ("/tp", "tp"). */
function controlFor(field) {
  const name = String(field).replace(/^\//, '').split(/[/:]/)[0];
  const alias = FIELD_ALIASES[name];
  if (alias && S.controls[alias]) return S.controls[alias];
  return S.controls[name] || null;
}

function clearMessages() {
  for (const n of document.querySelectorAll('#fields .field-error')) n.textContent = '';
  for (const n of document.querySelectorAll('#fields .warnings')) n.replaceChildren();
  for (const n of document.querySelectorAll('#fields [aria-invalid]')) n.removeAttribute('aria-invalid');
  $('form-error').textContent = '';
  $('general-warnings').replaceChildren();
}

function showError(err) {
  const e = (err && err.error) || {};
  const c = e.field !== undefined && e.field !== '' ? controlFor(e.field) : null;
  const msg = e.message || 'the server refused the request';
  if (c && c.box) {
    c.box.querySelector('.field-error').textContent = msg;
    for (const i of c.box.querySelectorAll('input, select')) if (!i.hidden) i.setAttribute('aria-invalid', 'true');
    c.focus();
  } else {
    $('form-error').textContent = msg;
  }
}

function showWarnings(list) {
  for (const w of list || []) {
    const c = controlFor(w.split(':')[0]);
    const target = c && c.box ? c.box.querySelector('.warnings') : $('general-warnings');
    target.append(el('li', { text: w }));
  }
}

/* ------------------------------------------------------------- predict */

function setStatus(state, text) {
  const s = $('status');
  s.dataset.state = state;
  s.textContent = text;
}

async function predict(pushUrl) {
  const gen = ++S.generation;
  clearMessages();
  const req = formRequest();
  setStatus('busy', 'Computing…');
  const r = await api('/v1/predict/inference', req);
  if (gen !== S.generation) return;
  if (!r.ok) {
    clearAnswer();
    showError(r.body);
    setStatus('error', `The server answered ${r.status || 'nothing'}; nothing was computed.`);
    S.runs++;
    $('status').dataset.runs = S.runs;
    return;
  }
  renderAnswer(r.body);
  updateLink(req, pushUrl);
  const batch = await runBatch(req);
  if (gen !== S.generation) return;
  renderCompare(req, r.body, batch);
  renderPlots(batch);
  S.runs++;
  $('status').dataset.runs = S.runs;
  setStatus('done', `Computed from parameter set ${r.body.params_version || ''} at ${new Date().toLocaleTimeString()}.`);
}

/* One batch for everything else: each configuration (the form's and the
 * compared ones) over the concurrency grid, and each compared one at the
 * form's load. */
async function runBatch(req) {
  const shared = sharedPart(req);
  const curveShared = Object.assign({}, shared);
  delete curveShared.rate;
  const configs = [configPart(req), ...S.compare.map((c) => withBase(configPart(req), c))];
  const items = [];
  const index = { curves: [], rows: [] };
  configs.forEach((c, i) => {
    index.curves.push(GRID.map((n) => items.push(Object.assign({}, c, curveShared, { concurrency: n })) - 1));
    if (i > 0) index.rows.push(items.push(Object.assign({}, c, shared)) - 1);
  });
  const r = await api('/v1/predict/batch', items);
  const results = r.ok && r.body && Array.isArray(r.body.results) ? r.body.results : null;
  return { configs, index, results, error: results ? null : r.body };
}

function clearAnswer() {
  $('node-power').textContent = '—';
  $('node-power-interval').textContent = '';
  $('answer-table').tBodies[0].replaceChildren();
}

/* Every quantity of an answer: [key, leaf, value, interval, covers]
 * (nested objects of numbers are flattened as "parent.key"). */
function quantities(answer) {
  const out = [];
  const iv = answer.interval_95 || {};
  const walk = (obj, prefix, ivs) => {
    for (const [k, v] of Object.entries(obj)) {
      if (!prefix && ANSWER_SKIP.includes(k)) continue;
      if (prefix && (k === 'interval_95' || k === 'warnings')) continue;
      const key = prefix ? `${prefix}.${k}` : k;
      const ivv = ivs && (ivs[k] !== undefined ? ivs[k] : iv[key]);
      /* what the interval covers: per quantity when the block says, else
       * the block's (docs/intervals.md) */
      const by = ivs && ivs.covers_by_quantity;
      const cov = ivv ? (by && by[k]) || (ivs && ivs.covers) || iv.covers || '' : '';
      if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'string') out.push([key, k, v, ivv, cov]);
      /* a block with its own intervals (the capacity answers) uses them */
      else if (v && typeof v === 'object' && !Array.isArray(v)) walk(v, key, v.interval_95 || (ivs && ivs[k]));
    }
  };
  walk(answer, '', iv);
  return out;
}

function renderAnswer(a) {
  clearAnswer();
  const iv = a.interval_95;
  $('node-power').textContent = `${fmt(a.node_power_w)} W`;
  $('node-power-interval').textContent = iv && iv.node_power_w
    ? `95 % interval ${fmtInterval(iv.node_power_w)} W (covers ${iv.covers || 'parameters'}; ${iv.draws} draws)`
    : 'no interval: see the warnings';
  const body = $('answer-table').tBodies[0];
  for (const [key, leaf, v, ivv, cov] of quantities(a)) {
    const unit = PATH_LABELS[key] ? PATH_LABELS[key][1] : unitLabel(leaf);
    const shown = typeof v === 'number' ? `${fmt(v)}${unit ? ' ' + unit : ''}` : String(v);
    body.append(el('tr', { 'data-key': key },
      el('th', { scope: 'row', text: PATH_LABELS[key] ? PATH_LABELS[key][0]
        : key.includes('.') ? `${humanize(key.split('.')[0])}: ${labelOf(leaf)}` : labelOf(leaf) }),
      el('td', { class: 'num', text: shown }),
      el('td', { class: 'num', text: fmtInterval(ivv) }),
      el('td', { class: 'covers', text: cov })));
  }
  /* the answer's warnings and those of its blocks (capacity, ...) */
  showWarnings([].concat(a.warnings || [], ...Object.values(a)
    .filter((v) => v && typeof v === 'object' && Array.isArray(v.warnings)).map((v) => v.warnings)));
}

/* ---------------------------------------------------------- comparison */

function describe(c) {
  const parts = [c.platform, c.model || (c.active_params_b !== undefined ? `${c.active_params_b} B` : '')];
  if (c.tp !== undefined) parts.push(`TP ${c.tp}`);
  for (const [k, v] of Object.entries(c))
    if (!['platform', 'model', 'active_params_b', 'tp'].includes(k)) parts.push(`${k} ${v}`);
  return parts.filter((x) => x !== undefined && x !== '').join(' · ');
}

function renderCompare(req, answer, batch) {
  const rows = [{ config: configPart(req), answer, label: 'chosen' }];
  S.compare.forEach((c0, i) => {
    const c = withBase(configPart(req), c0);
    const res = batch.results ? batch.results[batch.index.rows[i]] : batch.error;
    rows.push({ config: c, answer: res, label: `#${i + 1}`, i });
  });
  const fields = COMPARE_FIELDS.filter((f) => rows.some((r) => typeof pick(r.answer, f)[0] === 'number'));
  const load = req.concurrency !== undefined ? `n = ${fmt(req.concurrency)}` : req.rate !== undefined ? `${fmt(req.rate)} requests/s` : '';
  $('compare-table').tHead.replaceChildren(el('tr', {},
    el('th', { scope: 'col', text: '' }), el('th', { scope: 'col', text: 'configuration' }),
    fields.map((f) => el('th', { scope: 'col', text: `${labelOf(f)} at ${load}${unitLabel(f) ? ` (${unitLabel(f)})` : ''}` })),
    el('th', { scope: 'col', text: 'warnings' }), el('th', { scope: 'col', text: '' })));
  const body = $('compare-table').tBodies[0];
  body.replaceChildren();
  rows.forEach((r, k) => {
    const err = r.answer && r.answer.error;
    const swatch = svg('svg', { width: 28, height: 10, 'aria-hidden': 'true' },
      svg('line', { x1: 0, y1: 5, x2: 28, y2: 5, stroke: COLORS[k], 'stroke-width': 3, 'stroke-dasharray': DASHES[k] }));
    const actions = r.i === undefined ? [] : [
      el('button', { type: 'button', text: 'Load', 'aria-label': `Load comparison ${k} into the form`,
        onclick: () => { setForm(Object.assign({}, sharedPart(formRequest()), r.config)); } }),
      el('button', { type: 'button', text: 'Remove', 'aria-label': `Remove comparison ${k}`,
        onclick: () => { S.compare.splice(r.i, 1); predict(true); } })];
    body.append(el('tr', { 'data-row': r.label },
      el('td', {}, swatch, ` ${r.label}`),
      el('td', { class: 'config', text: describe(r.config) }),
      err ? el('td', { class: 'field-error', colspan: fields.length, text: err.message || 'error' })
        : fields.map((f) => {
          const [v, iv] = pick(r.answer, f);
          return el('td', { class: 'num', 'data-key': f, 'data-label': labelOf(f) },
            typeof v === 'number' ? `${fmt(v)} ${fmtInterval(iv)}` : '—');
        }),
      el('td', {}, el('ul', { class: 'warnings' }, ((r.answer && r.answer.warnings) || []).map((w) => el('li', { text: w })))),
      el('td', {}, actions)));
  });
  $('add-compare').disabled = S.compare.length >= MAX_COMPARE;
}

/* A compared configuration: the entry's fields over the chosen one's, so a
 * link may name only what differs ("cmp=platform:H100"). */
function withBase(base, entry) {
  const c = Object.assign({}, base);
  if (entry.model !== undefined) delete c.active_params_b;
  if (entry.active_params_b !== undefined) delete c.model;
  return Object.assign(c, entry);
}

function addCompare() {
  if (S.compare.length >= MAX_COMPARE) return;
  S.compare.push(configPart(formRequest()));
  predict(true);
}

/* -------------------------------------------------------------- plots */

function niceTicks(lo, hi, count) {
  const span = hi - lo || Math.abs(hi) || 1;
  const step0 = span / count;
  const mag = Math.pow(10, Math.floor(Math.log10(step0)));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => span / s <= count) || 10 * mag;
  const out = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) out.push(Math.abs(v) < step * 1e-9 ? 0 : v);
  return out;
}

function logTicks(lo, hi) {
  const out = [];
  for (let e = Math.floor(Math.log10(lo)); e <= Math.ceil(Math.log10(hi)); e++)
    for (const m of [1, 2, 5]) { const v = m * Math.pow(10, e); if (v >= lo * 0.999 && v <= hi * 1.001) out.push(v); }
  return out;
}

/* A line chart into `box`: series [{name, color, dash, points: [{x, y,
 * lo?, hi?}]}], log x (base 2 ticks), linear or log y; bands where the
 * points have lo/hi; `marker` draws a vertical line at that x. */
function drawChart(box, spec) {
  const W = Math.max(280, Math.min(box.clientWidth || 640, 900));
  const H = Math.round(Math.max(220, Math.min(W * 0.5, 340)));
  const m = { l: 58, r: spec.series.some((x) => x.short) ? 58 : 12, t: 12, b: 44 };
  const pts = spec.series.flatMap((s) => s.points);
  const xs = pts.map((p) => p.x);
  const ys = pts.flatMap((p) => [p.y, p.lo, p.hi]).filter((v) => Number.isFinite(v) && (!spec.ylog || v > 0));
  if (!ys.length) return;
  const x0 = Math.min(...xs), x1 = Math.max(...xs);
  let y0 = spec.ylog ? Math.min(...ys) : Math.min(0, ...ys), y1 = Math.max(...ys);
  if (!spec.ylog) y1 *= 1.05;
  const lx = (v) => (spec.xlog ? Math.log2(v) : v);
  const ly = (v) => (spec.ylog ? Math.log10(v) : v);
  const X = (v) => m.l + ((lx(v) - lx(x0)) / (lx(x1) - lx(x0) || 1)) * (W - m.l - m.r);
  const Y = (v) => H - m.b - ((ly(v) - ly(y0)) / (ly(y1) - ly(y0) || 1)) * (H - m.t - m.b);
  const g = svg('svg', { viewBox: `0 0 ${W} ${H}`, width: W, height: H, role: 'img', 'aria-label': spec.title, class: 'chart' },
    svg('title', {}, document.createTextNode(spec.title)));
  const xt = spec.xlog ? xs.filter((v, i, a) => Number.isInteger(Math.log2(v)) && a.indexOf(v) === i) : niceTicks(x0, x1, 6);
  const yt = spec.ylog ? logTicks(y0, y1) : niceTicks(y0, y1, 5);
  for (const v of yt) {
    g.append(svg('line', { x1: m.l, x2: W - m.r, y1: Y(v), y2: Y(v), class: 'grid' }),
      svg('text', { x: m.l - 6, y: Y(v) + 4, 'text-anchor': 'end', class: 'tick' }, document.createTextNode(fmt(v))));
  }
  for (const v of xt) {
    g.append(svg('line', { x1: X(v), x2: X(v), y1: m.t, y2: H - m.b, class: 'grid' }),
      svg('text', { x: X(v), y: H - m.b + 16, 'text-anchor': 'middle', class: 'tick' }, document.createTextNode(fmt(v))));
  }
  g.append(svg('line', { x1: m.l, x2: W - m.r, y1: H - m.b, y2: H - m.b, class: 'axis' }),
    svg('line', { x1: m.l, x2: m.l, y1: m.t, y2: H - m.b, class: 'axis' }),
    svg('text', { x: (m.l + W - m.r) / 2, y: H - 6, 'text-anchor': 'middle', class: 'label' }, document.createTextNode(spec.x)),
    svg('text', { x: 14, y: (m.t + H - m.b) / 2, 'text-anchor': 'middle', class: 'label',
      transform: `rotate(-90 14 ${(m.t + H - m.b) / 2})` }, document.createTextNode(spec.y)));
  spec.series.forEach((s) => {
    const band = s.points.filter((p) => Number.isFinite(p.lo) && Number.isFinite(p.hi));
    if (band.length > 1) {
      const d = band.map((p) => `${X(p.x)},${Y(p.hi)}`).concat(band.slice().reverse().map((p) => `${X(p.x)},${Y(p.lo)}`));
      g.append(svg('polygon', { points: d.join(' '), fill: s.color, 'fill-opacity': 0.16, stroke: 'none', class: 'band', 'data-series': s.name }));
    }
  });
  spec.series.forEach((s) => {
    const d = s.points.filter((p) => Number.isFinite(p.y)).map((p, i) => `${i ? 'L' : 'M'}${X(p.x).toFixed(1)},${Y(p.y).toFixed(1)}`).join('');
    g.append(svg('path', { d, fill: 'none', stroke: s.color, 'stroke-width': s.width || 2.2, 'stroke-dasharray': s.dash || null, class: 'line', 'data-series': s.name }));
  });
  directLabels(g, spec.series, X, Y, W - m.r + 4, m.t, H - m.b);
  if (Number.isFinite(spec.marker) && spec.marker >= x0 && spec.marker <= x1)
    g.append(svg('line', { x1: X(spec.marker), x2: X(spec.marker), y1: m.t, y2: H - m.b, class: 'marker' }));
  box.replaceChildren(g);
}

/* Each line's short name at its right end, pushed apart so that no two
 * overlap (the legend below the chart spells them out). */
function directLabels(g, series, X, Y, x, top, bottom) {
  const gap = 14;
  const labels = series.filter((s) => s.short).map((s) => {
    const last = s.points.filter((p) => Number.isFinite(p.y)).pop();
    return last ? { s, y: Y(last.y) + 4 } : null;
  }).filter(Boolean).sort((a, b) => a.y - b.y);
  for (let i = 1; i < labels.length; i++) labels[i].y = Math.max(labels[i].y, labels[i - 1].y + gap);
  for (let i = labels.length - 1; i >= 0; i--) {
    labels[i].y = Math.min(labels[i].y, (i === labels.length - 1 ? bottom : labels[i + 1].y - gap));
    labels[i].y = Math.max(labels[i].y, top + 10);
  }
  for (const l of labels)
    g.append(svg('text', { x, y: l.y, class: 'direct', fill: l.s.color }, document.createTextNode(l.s.short)));
}

/* A figure: title, chart, legend and the data as a table (for screen
 * readers and for copying numbers). */
function figure(id, spec) {
  const chart = el('div', { class: 'chart-box' });
  const legend = el('ul', { class: 'legend' }, spec.series.map((s) => el('li', {},
    svg('svg', { width: 28, height: 10, 'aria-hidden': 'true' },
      svg('line', { x1: 0, y1: 5, x2: 28, y2: 5, stroke: s.color, 'stroke-width': 3, 'stroke-dasharray': s.dash || null })),
    ` ${s.name}`)));
  const xs = spec.series[0].points.map((p) => p.x);
  const table = el('table', { class: 'values' },
    el('thead', {}, el('tr', {}, el('th', { scope: 'col', text: spec.x }), spec.series.map((s) => el('th', { scope: 'col', text: s.name })))),
    el('tbody', {}, xs.map((x, i) => el('tr', {}, el('th', { scope: 'row', text: fmt(x) }),
      spec.series.map((s) => { const p = s.points[i] || {}; return el('td', { class: 'num', text: `${fmt(p.y)} ${Number.isFinite(p.lo) ? fmtInterval([p.lo, p.hi]) : ''}` }); })))));
  const fig = el('figure', { id, class: 'plot' }, el('figcaption', { text: spec.title }), chart, legend,
    el('details', {}, el('summary', { text: 'Data' }), el('div', { class: 'scroll' }, table)));
  fig.redraw = () => drawChart(chart, spec);
  return fig;
}

function renderPlots(batch) {
  const list = $('plot-list');
  list.replaceChildren();
  if (!batch.results) {
    list.append(el('p', { class: 'error', text: (batch.error && batch.error.error && batch.error.error.message) || 'the curves could not be computed' }));
    return;
  }
  const marker = formRequest().concurrency;
  for (const c of CURVES) {
    const series = batch.configs.map((cfg, k) => ({
      name: k === 0 ? `chosen: ${describe(cfg)}` : `#${k}: ${describe(cfg)}`,
      short: k === 0 ? 'chosen' : `#${k}`, color: COLORS[k], dash: DASHES[k], width: k === 0 ? 3 : 2,
      points: batch.index.curves[k].map((i, j) => {
        const [y, iv] = pick(batch.results[i], c.field);
        return { x: GRID[j], y, lo: iv ? iv[0] : NaN, hi: iv ? iv[1] : NaN };
      }),
    })).filter((s) => s.points.some((p) => Number.isFinite(p.y)));
    if (!series.length) continue;
    const fig = figure(`plot-${c.field}`, { title: c.title, x: 'requests running, n (log scale)', y: c.y, xlog: true, ylog: c.ylog, series, marker });
    list.append(fig);
    fig.redraw();
  }
  if (!batch.results.some((a) => a && a.interval_95))
    list.append(el('p', { class: 'muted', text: 'No interval bands: the loaded parameter set has neither bootstrap draws nor a held-out error.' }));
}

/* ---------------------------------------------- panels of newer routes */

/* A panel for one endpoint: a form built from its request schema, its
 * answer shown generically and, when it holds an array of points, drawn. */
function buildPanel(p) {
  const media = requestMedia(p.path);
  if (!media) return;
  const props = schemaProperties(media.schema);
  const examples = media.examples ? Object.values(media.examples).map((e) => e.value) : [];
  const example = examples[0] || media.example || {};
  const inputs = {};
  const form = el('form', { novalidate: true, class: 'panel-form' });
  const own = Object.keys(props).filter((k) => !(p.useConfig && S.request[k]));
  for (const k of own) {
    const ps = props[k];
    const id = `p-${p.path.replace(/\W+/g, '-')}-${k}`;
    const t = [].concat(ps.type)[0];
    if (k === 'workload') { inputs[k] = workloadControls(id, example[k] || {}, form); continue; }
    if (k === 'fleet') { inputs[k] = fleetControls(id, ps, example[k], form); continue; }
    /* Other objects (a response override) keep the API's defaults: a
     * planner is never sent values the page does not show. */
    if (t === 'object' || t === 'array') continue;
    if (t === 'boolean') {
      const c = el('input', { id, type: 'checkbox' });
      c.checked = example[k] !== undefined ? !!example[k] : ps.default !== false;
      inputs[k] = { read: () => c.checked };
      form.append(fieldBox(k, humanize(k), '', c, ps.description || ''));
      continue;
    }
    const c = ps.enum ? selectOf(id, ps.enum, example[k] !== undefined ? example[k] : ps.default)
      : el('input', { id, type: t === 'string' ? 'text' : 'number', step: 'any', value: example[k] !== undefined ? example[k] : '' });
    inputs[k] = { c, t: ps.enum ? 'string' : t };
    form.append(fieldBox(k, humanize(k), unitOf(k), c, ps.description || ''));
  }
  const out = el('div', { 'aria-live': 'polite' });
  const err = el('p', { class: 'error', 'aria-live': 'assertive' });
  form.append(err, el('div', { class: 'buttons' }, el('button', { type: 'submit', text: 'Compute' })));
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    for (const n of form.querySelectorAll('.field-error')) n.textContent = '';
    err.textContent = '';
    const body = p.useConfig ? Object.assign({}, formRequest()) : {};
    for (const [k, i] of Object.entries(inputs)) {
      if (i.read) { const v = i.read(); if (v !== undefined) body[k] = v; } else Object.assign(body, valueOf(i.c, i.t, k));
    }
    for (const k of Object.keys(body)) if (!props[k]) delete body[k];
    const r = await api(p.path, body);
    if (!r.ok) {
      const e = (r.body && r.body.error) || {};
      const name = String(e.field || '').replace(/^\//, '').split('/')[0];
      const box = form.querySelector(`.field[data-field="${name}"] .field-error`);
      (box || err).textContent = e.message || `the server answered ${r.status}`;
      return;
    }
    out.replaceChildren(answerTable(r.body), pointsFigure(p, r.body) || columnsFigure(p, r.body));
  });
  $('panels').append(el('section', { class: 'card wide panel', 'data-path': p.path },
    el('h2', { text: p.title }), p.useConfig ? el('p', { class: 'muted', text: 'Uses the configuration above.' }) : null,
    form, out));
}

/* The workload a planner varies: its type, the arrival rate (open loop) or
 * the clients (closed loop), burstiness, and the mean token lengths (drawn
 * lognormal with sd = mean, as ShareGPT-like lengths are). Returns the
 * panel input: read() gives the request's workload object. */
function workloadControls(idp, ex, form) {
  const types = [['poisson', 'Poisson arrivals'], ['bursty', 'Bursty arrivals (gamma gaps)'], ['closed', 'Closed loop (fixed clients)']];
  const type = selectOf(`${idp}-type`, types, types.some((t) => t[0] === ex.type) ? ex.type : 'poisson');
  const num = (name, v, step) => el('input', { id: `${idp}-${name}`, type: 'number', step: step || 'any', min: '0',
    inputmode: 'decimal', value: v === undefined ? '' : String(v) });
  const mean = (x, d) => (typeof x === 'number' ? x : x && typeof x.mean === 'number' ? x.mean : d);
  const rate = num('rate', ex.rate !== undefined ? ex.rate : 4);
  const conc = num('concurrency', ex.concurrency !== undefined ? ex.concurrency : 8, '1');
  const burst = num('burstiness', ex.burstiness !== undefined ? ex.burstiness : 0.5);
  const inTok = num('input_tokens', mean(ex.input_tokens, 512), '1');
  const outTok = num('output_tokens', mean(ex.output_tokens, 256), '1');
  const boxes = {
    rate: fieldBox('workload', 'Arrival rate', 'requests/s', rate, 'requests arriving per second at one server'),
    concurrency: fieldBox('workload', 'Clients', 'requests', conc, 'requests kept running (closed loop)'),
    burstiness: fieldBox('workload', 'Burstiness', 'gamma shape', burst, 'below 1 is burstier than Poisson'),
  };
  const sync = () => {
    boxes.rate.hidden = type.value === 'closed';
    boxes.concurrency.hidden = type.value !== 'closed';
    boxes.burstiness.hidden = type.value !== 'bursty';
  };
  type.addEventListener('change', sync);
  form.append(fieldBox('workload', 'Workload', '', type, ''), boxes.rate, boxes.concurrency, boxes.burstiness,
    fieldBox('workload', 'Input tokens', 'mean per request', inTok, ''),
    fieldBox('workload', 'Output tokens', 'mean per request', outTok, ''));
  sync();
  const length = (c) => { const m = Number(c.value); return { mean: m, sd: m }; };
  return { read: () => {
    const w = { type: type.value, input_tokens: length(inTok), output_tokens: length(outTok) };
    if (type.value === 'closed') w.concurrency = Number(conc.value);
    else w.rate = Number(rate.value);
    if (type.value === 'bursty') w.burstiness = Number(burst.value);
    return w;
  } };
}

/* A fleet of servers behind one feed: its size and how requests are
 * spread; size 1 (or empty) asks for one server. */
function fleetControls(idp, ps, ex, form) {
  const props = schemaProperties(ps);
  const size = el('input', { id: `${idp}-size`, type: 'number', step: '1', min: '1', inputmode: 'numeric',
    value: ex && ex.size ? String(ex.size) : '1' });
  const modes = (props.mode && props.mode.enum) || ['independent'];
  const mode = selectOf(`${idp}-mode`, modes, ex && ex.mode ? ex.mode : modes[0]);
  form.append(fieldBox('fleet', 'Fleet size', 'servers', size, 'servers whose aggregate is simulated'),
    fieldBox('fleet', 'Fleet mode', '', mode, 'independent: each its own arrivals; otherwise one balancer'));
  return { read: () => (Number(size.value) > 1 ? { size: Number(size.value), mode: mode.value } : undefined) };
}

function answerTable(a) {
  const rows = quantities(a).map(([key, leaf, v, iv]) => el('tr', { 'data-key': key },
    el('th', { scope: 'row', text: labelOf(leaf) }),
    el('td', { class: 'num', text: typeof v === 'number' ? `${fmt(v)} ${unitLabel(leaf)}` : String(v) }),
    el('td', { class: 'num', text: fmtInterval(iv) })));
  return el('div', {}, el('table', { class: 'values' }, el('tbody', {}, rows)),
    el('ul', { class: 'warnings' }, (a.warnings || []).map((w) => el('li', { text: w }))));
}

/* The first array of objects in an answer, drawn against its first key
 * (time or fleet size); keys named like p5/lo and p95/hi become a band. */
function pointsFigure(p, a) {
  const arr = Object.entries(a).find(([, v]) => Array.isArray(v) && v.length > 1 && v[0] && typeof v[0] === 'object');
  if (!arr) return null;
  const [name, rows] = arr;
  const keys = Object.keys(rows[0]).filter((k) => typeof rows[0][k] === 'number');
  if (keys.length < 2) return null;
  const xk = keys[0];
  const lo = keys.find((k) => /(^|_)(p5|p05|lo|low)(_|$)/.test(k));
  const hi = keys.find((k) => /(^|_)(p95|hi|high)(_|$)/.test(k));
  const ys = keys.slice(1).filter((k) => k !== lo && k !== hi);
  const series = ys.map((k, i) => ({ name: humanize(k), color: COLORS[i % COLORS.length], dash: DASHES[i % DASHES.length],
    points: rows.map((r) => ({ x: r[xk], y: r[k], lo: i === 0 && lo ? r[lo] : NaN, hi: i === 0 && hi ? r[hi] : NaN })) }));
  const unit = unitOf(ys[0] || '');
  const fig = figure(`plot-${p.path.replace(/\W+/g, '-')}`, { title: `${p.title}: ${humanize(name)}`,
    x: `${humanize(xk)}${unitOf(xk) ? ` (${unitOf(xk)})` : ''}`, y: unit ? `${humanize(ys[0])} (${unit})` : humanize(ys[0] || ''),
    xlog: false, ylog: false, series });
  requestAnimationFrame(() => fig.redraw());
  return fig;
}

/* Columns of equal-length number arrays anywhere in an answer (an
 * envelope's `server.bins`: t_s, mean_w, p5_w, p95_w, ...), drawn against
 * the time column; p5/p95 columns become the band around the first other. */
function findColumns(a, path, depth) {
  if (!a || typeof a !== 'object' || Array.isArray(a) || depth > 3) return null;
  const cols = Object.entries(a).filter(([, v]) => Array.isArray(v) && v.length > 1 && v.every((x) => typeof x === 'number'));
  if (cols.length >= 2 && cols.every(([, v]) => v.length === cols[0][1].length)) return { path, cols };
  for (const [k, v] of Object.entries(a)) {
    const f = findColumns(v, path ? `${path}.${k}` : k, depth + 1);
    if (f) return f;
  }
  return null;
}

function columnsFigure(p, a) {
  const found = findColumns(a, '', 0);
  if (!found) return null;
  const cols = Object.fromEntries(found.cols);
  const names = Object.keys(cols);
  const xk = names.find((k) => /(^|_)s$/.test(k)) || names[0];
  const lo = names.find((k) => k !== xk && /(^|_)(p5|p05|lo|low)(_|$)/.test(k));
  const hi = names.find((k) => k !== xk && /(^|_)(p95|hi|high)(_|$)/.test(k));
  const ys = names.filter((k) => k !== xk && k !== lo && k !== hi && unitOf(k) === unitOf(lo || names[1]));
  if (!ys.length) return null;
  const series = ys.map((k, i) => ({ name: humanize(k), color: COLORS[i % COLORS.length], dash: DASHES[i % DASHES.length],
    points: cols[xk].map((x, j) => ({ x, y: cols[k][j], lo: i === 0 && lo ? cols[lo][j] : NaN, hi: i === 0 && hi ? cols[hi][j] : NaN })) }));
  const unit = unitOf(ys[0]);
  const fig = figure(`plot-${p.path.replace(/\W+/g, '-')}`, { title: `${p.title}: ${humanize(found.path || 'answer')}`,
    x: `${humanize(xk)}${unitOf(xk) ? ` (${unitOf(xk)})` : ''}`, y: unit ? `${humanize(ys[0])} (${unit})` : humanize(ys[0]),
    xlog: false, ylog: false, series });
  requestAnimationFrame(() => fig.redraw());
  return fig;
}

/* ---------------------------------------------------------- calibration */

function scalarText(s) {
  if (!s || typeof s !== 'object' || typeof s.value !== 'number') return '—';
  return `${fmt(s.value)}${s.ci95 ? ' ' + fmtInterval(s.ci95) : ''}`;
}

function sourceBadge(s) {
  if (!s || !s.source) return '';
  return el('span', { class: `src src-${s.source}`, title: SOURCES[s.source] || s.source, text: s.source });
}

function scalarCell(s) {
  return el('td', { class: 'num' }, scalarText(s), ' ', sourceBadge(s));
}

function rangeText(r) {
  return r ? `${fmt(r[0])}–${fmt(r[1])}` : '—';
}

/* Every {value, source} object under `obj`, as [path, scalar]. */
function scalarsUnder(obj, prefix, out) {
  if (!obj || typeof obj !== 'object') return out;
  if (typeof obj.value === 'number' && typeof obj.source === 'string') { out.push([prefix, obj]); return out; }
  for (const [k, v] of Object.entries(obj)) scalarsUnder(v, prefix ? `${prefix}.${k}` : k, out);
  return out;
}

function renderCalibration(resp) {
  const p = resp.params;
  const body = $('calibration-body');
  const levels = el('table', { class: 'values', id: 'cal-levels' },
    el('thead', {}, el('tr', {}, ['platform', 'P0 (W)', 'S (W)', 'θ', 'active params (B)', 'n', 'TP', 'clock (MHz)', 'runs']
      .map((h) => el('th', { scope: 'col', text: h })))),
    el('tbody', {}, p.levels.map((l) => el('tr', { 'data-level': l.name },
      el('th', { scope: 'row', text: l.name }), scalarCell(l.p0_w),
      l.s_w ? scalarCell(l.s_w) : el('td', { text: l.s_shared_with ? `shared with ${l.s_shared_with}` : '—' }),
      scalarCell(l.theta),
      ...['active_params_b', 'running', 'tp', 'sm_clock_mhz'].map((k) => el('td', { class: 'num', text: rangeText(l.range && l.range[k]) })),
      el('td', { class: 'num', text: l.range && l.range.runs !== undefined ? String(l.range.runs) : '—' })))));
  const sharedNames = { delta: 'δ (model-size slope)', gamma1: 'γ1 (load slope)', gamma2: 'γ2 (quadratic load)', kappa: 'κ (clock exponent)' };
  const shared = el('table', { class: 'values', id: 'cal-shared' }, el('caption', { text: 'Shared by every platform' }),
    el('tbody', {}, Object.entries(p.shared || {}).map(([k, s]) => el('tr', {}, el('th', { scope: 'row', text: sharedNames[k] || k }), scalarCell(s)))));
  const terms = el('table', { class: 'values', id: 'cal-terms' }, el('caption', { text: 'Precision terms (kept ones change the prediction)' }),
    el('thead', {}, el('tr', {}, ['setting', 'precision', 'platform', 'placement', 'value', 'p', 'pairs', 'kept'].map((h) => el('th', { scope: 'col', text: h })))),
    el('tbody', {}, (p.precision_terms || []).map((t) => el('tr', {},
      el('td', { text: t.setting }), el('td', { text: t.precision }), el('td', { text: t.level || 'all' }),
      el('td', { text: t.placement }), t.value ? scalarCell(t.value) : el('td', { text: '—' }),
      el('td', { class: 'num', text: t.p_value !== null && t.p_value !== undefined ? fmt(t.p_value) : '—' }),
      el('td', { class: 'num', text: t.pairs !== undefined ? String(t.pairs) : '—' }), el('td', { text: t.kept ? 'yes' : 'no' })))));
  /* Sections this page has no table for (capacity, fine-tuning, ...):
   * every {value, source} in them. */
  const known = ['schema', 'name', 'form', 'clock_ref_mhz', 'levels', 'shared', 'precision_terms', 'provenance', 'draws'];
  const extra = Object.entries(p).filter(([k, v]) => !known.includes(k) && v && typeof v === 'object')
    .map(([k, v]) => [k, scalarsUnder(v, '', [])]).filter(([, rows]) => rows.length)
    .map(([k, rows]) => el('table', { class: 'values', 'data-section': k }, el('caption', { text: `Section ${k}` }),
      el('tbody', {}, rows.map(([path, s]) => el('tr', {}, el('th', { scope: 'row', text: path }), scalarCell(s))))));
  const used = new Set(scalarsUnder(p, '', []).map(([, s]) => s.source));
  const legend = el('dl', { class: 'sources' }, [...used].flatMap((s) => [el('dt', {}, sourceBadge({ source: s })), el('dd', { text: SOURCES[s] || '' })]));
  const prov = p.provenance || {};
  const facts = el('dl', { class: 'facts' },
    [['name', resp.name], ['version', resp.params_version], ['source', resp.source], ['loaded', resp.loaded_utc],
      ['form', p.form], ['schema', p.schema], ['bootstrap draws', String(resp.n_draws)],
      ['runs fitted', prov.runs !== undefined ? String(prov.runs) : null], ['seed', prov.seed ? String(prov.seed) : null],
      ['created', prov.created_utc]].filter(([, v]) => v !== null && v !== undefined && v !== '')
      .flatMap(([k, v]) => [el('dt', { text: k }), el('dd', { text: v })]));
  body.replaceChildren(facts,
    el('h3', { text: 'Per platform: loaded idle power P0, scale S and intercept θ (95 % intervals), and the calibrated ranges' }),
    el('div', { class: 'scroll' }, levels), el('div', { class: 'cal-row' }, shared, legend),
    el('div', { class: 'scroll' }, terms), ...extra.map((t) => el('div', { class: 'scroll' }, t)));
}

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
  if (hasPath('/v1/profiles')) {
    const pr = await api('/v1/profiles');
    if (pr.ok) S.profiles = pr.body.profiles || [];
  }
  $('params-line').textContent = `Parameter set ${params.body.name} (version ${params.body.params_version}, ${params.body.n_draws} bootstrap draws) from ${params.body.source}.`;
  buildForm();
  renderCalibration(params.body);
  for (const p of PANELS) if (hasPath(p.path)) buildPanel(p);
  const { req, cmp } = parseQuery(location.search);
  S.compare = cmp;
  setForm(req);
  $('form').addEventListener('submit', (ev) => { ev.preventDefault(); predict(true); });
  $('add-compare').addEventListener('click', addCompare);
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
