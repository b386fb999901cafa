/*
 * wattcast planner page, form.js (docs/planner.md): the form's controls,
 * built from the inference request schema, the form's request and its
 * shareable URL, and the API's messages on the fields they concern. A
 * classic script loaded with defer after page.js, whose tables and helpers
 * it uses; start() in page.js calls it once every script has run.
 */
'use strict';

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
    const arch = props.architecture ? architectureControls(props.architecture) : null;
    if (arch) box.append(arch.box);
    const sync0 = sync;
    const syncAll = () => { sync0(); if (arch) arch.box.hidden = sel.value !== ''; };
    sel.addEventListener('change', syncAll);
    S.controls.model = { f, box, get: () => (sel.value ? { model: sel.value }
      : Object.assign(valueOf(ap, 'number', 'active_params_b'), arch ? arch.get() : {})),
      set: (req) => {
        if (req.model !== undefined) {
          if (![...sel.options].some((o) => o.value === req.model)) sel.append(el('option', { value: req.model, text: req.model }));
          sel.value = req.model;
        } else if (req.active_params_b !== undefined && props.active_params_b) {
          sel.value = ''; setValue(ap, req.active_params_b);
        }
        if (arch) arch.set(req.model === undefined ? req.architecture || {} : {});
        syncAll();
      }, focus: () => (sel.value ? sel : ap).focus(), inputs: [sel, ap] };
    syncAll();
    return box;
  }
  if (!p) return null;
  let control;
  if (f.kind === 'platform') control = platformOptions(el('select', { id, name: id }), S.platforms);
  else if (f.kind === 'profile') control = selectOf(id, [['', 'default'], ...(S.profiles || []).map((x) => x.name || x)]);
  /* An enum without a default (weights: the model's own precision) starts
   * at "default", left out of the request, so the server's rule applies. */
  else if (p.enum) control = selectOf(id, p.default !== undefined ? p.enum : [['', 'default'], ...p.enum], p.default);
  else if (p.type === 'boolean') control = el('input', { id, name: id, type: 'checkbox' });
  else if (['number', 'integer'].includes([].concat(p.type)[0])) control = numberInput(id, f, p);
  else control = el('input', { id, name: id, type: 'text', value: f.value || '', placeholder: f.placeholder || null });
  const box = fieldBox(f.name, f.label, f.unit, control, f.help || (f.generic ? p.description : ''));
  const kind = p.enum ? 'string' : p.type === 'boolean' ? 'boolean' : [].concat(p.type)[0];
  /* A value at the API's default is left out of the request and the URL. */
  const dflt = p.default !== undefined ? String(p.default) : null;
  S.controls[f.name] = { f, box, get: () => (control.value === dflt ? {} : valueOf(control, kind, f.name)),
    set: (req) => { if (req[f.name] !== undefined) setValue(control, req[f.name]); },
    reset: () => { if (control.tagName === 'SELECT') control.selectedIndex = Math.max(0, [...control.options].findIndex((o) => o.defaultSelected)); else setValue(control, f.value || ''); },
    focus: () => control.focus(), inputs: [control] };
  if (f.kind === 'platform') {
    control.addEventListener('change', platformHelp);
  }
  /* The calibration view shows the chosen profile's set (docs/planner.md, "Calibration view"). */
  if (f.kind === 'profile') control.addEventListener('change', () => { followProfile(); followPlatforms(); });
  return box;
}

/* "Other" model: the architecture the capacity answers need (layers, KV
 * heads, head size, and the hidden size a prompt's prefill needs:
 * docs/http-api.md, `architecture`), one box per property of the request
 * schema's `architecture`, as the CLI's --layers, --kv-heads, --head-dim,
 * --d-model. Each box takes the API's messages on /architecture/<name>. */
function architectureControls(schema) {
  const props = schemaProperties(schema);
  const inputs = {};
  const box = el('fieldset', { class: 'architecture' },
    el('legend', { text: 'Architecture (for latency, throughput and energy)' }));
  const order = [...ARCH_LABELS.map((a) => a[0]).filter((k) => props[k]), ...Object.keys(props).filter((k) => !ARCH_LABELS.some((a) => a[0] === k))];
  /* the four every model with a prompt needs first; the others (MoE,
   * hybrid attention) folded */
  const more = el('details', {}, el('summary', { text: 'More: total parameters, experts, attention window' }));
  for (const k of order) {
    const [, label, unit] = ARCH_LABELS.find((a) => a[0] === k) || [k, humanize(k), ''];
    const kind = [].concat(props[k].type)[0];
    const i = numberInput(`f-architecture-${k}`, { kind }, props[k]);
    const fb = fieldBox(`architecture/${k}`, label, unit, i, props[k].description || '');
    (['layers', 'kv_heads', 'head_dim', 'd_model'].includes(k) ? box : more).append(fb);
    inputs[k] = i;
    S.controls[`architecture/${k}`] = { box: fb, focus: () => { more.open = more.open || more.contains(i); i.focus(); }, inputs: [i] };
  }
  if (more.children.length > 1) box.append(more);
  return { box,
    get: () => {
      const a = {};
      for (const [k, i] of Object.entries(inputs)) Object.assign(a, valueOf(i, [].concat(props[k].type)[0], k));
      return Object.keys(a).length ? { architecture: a } : {};
    },
    set: (a) => {
      for (const [k, i] of Object.entries(inputs)) setValue(i, a[k] !== undefined ? a[k] : '');
      more.open = [...more.querySelectorAll('input')].some((i) => i.value !== '');
    } };
}

function setValue(control, v) {
  if (control.type === 'checkbox') control.checked = v === true || v === 'true';
  else {
    if (control.tagName === 'SELECT' && ![...control.options].some((o) => o.value === String(v)))
      control.append(el('option', { value: String(v), text: String(v) }));
    control.value = String(v);
    /* A number box empties a value that is not a number (a link's
     * "tp=8x"): kept as typed until edited, so the request sends it, the
     * API names it under its field and the link keeps it (docs/planner.md,
     * "Shareable state"). */
    delete control.dataset.typed;
    if (control.value === '' && String(v).trim() !== '') {
      control.dataset.typed = String(v);
      control.addEventListener('input', () => delete control.dataset.typed, { once: true });
    }
  }
}

/* A control's request entry: {} when empty, {name: value}; text that is
 * not a number is kept as text so the API names the problem. A number box
 * the browser cannot read (badInput) gives nothing: refuseUnreadable stops
 * the request before it is made. */
function valueOf(control, kind, name) {
  if (control.hidden || control.disabled) return {};
  if (kind === 'boolean') return control.checked ? { [name]: true } : {};
  if (control.validity && control.validity.badInput) return {};
  const v = control.value.trim();
  if (v === '' && control.dataset.typed !== undefined) return { [name]: control.dataset.typed };
  if (v === '') return {};
  if (kind === 'number' || kind === 'integer') {
    const x = Number(v);
    return { [name]: Number.isFinite(x) ? x : v };
  }
  return { [name]: v };
}

/* The number boxes under `root` whose text the browser cannot read ("1e",
 * "-"): validity.badInput, value "", what was typed not exposed, so there
 * is nothing true to send or link. Each is refused in place, under its own
 * box, marked and the first focused, before any request (docs/planner.md,
 * "Warnings and errors next to their input"). Returns the boxes' labels. */
function refuseUnreadable(root) {
  const bad = [...root.querySelectorAll('input[type="number"]')]
    .filter((i) => i.validity && i.validity.badInput && !i.disabled && !i.closest('[hidden]'));
  const labels = bad.map((i) => {
    const l = i.getAttribute('aria-label') || (document.querySelector(`label[for="${i.id}"]`) || {}).firstChild;
    const name = typeof l === 'string' ? l : l && l.textContent ? l.textContent.trim() : i.name || i.id;
    const digits = i.step === '1' || i.dataset.kind === 'integer' ? 'such as 32' : 'such as 32 or 2.5';
    const box = i.closest('.field');
    if (box) box.querySelector('.field-error').textContent = `${name}: not a number (the box cannot read what was typed; type digits ${digits})`;
    i.setAttribute('aria-invalid', 'true');
    return name;
  });
  if (bad.length) {
    const d = bad[0].closest('details');
    if (d) d.open = true;
    bad[0].focus();
  }
  return labels;
}

/* The platform list: the set's levels, then the catalog's boards the set
 * has no level of, answered from their datasheets and labelled so
 * (GET /v1/platforms; docs/planner.md, "Form"). The choice is kept when
 * the list changes with the profile. */
function platformOptions(select, list) {
  const keep = select.value;
  const group = (label, from, text) => {
    const items = list.filter((p) => p.answered_from === from);
    return items.length ? el('optgroup', { label }, items.map((p) => el('option', { value: p.name, text: text(p) }))) : null;
  };
  select.replaceChildren(...[group('Levels of the set', 'level', (p) => p.name),
    group('From datasheets (no fitted level)', 'datasheet', (p) => `${p.name} (datasheet)`)].filter(Boolean));
  if (keep) setValue(select, keep);
  return select;
}

/* The chosen profile's platforms (its levels differ from the default's). */
async function followPlatforms() {
  const p = S.controls.platform;
  if (!p || !hasPath('/v1/platforms')) return;
  const want = chosenProfile();
  if (want === S.platProfile) return;
  S.platProfile = want;
  const gen = ++S.platGeneration;
  const r = await api('/v1/platforms' + (want ? `?profile=${encodeURIComponent(want)}` : ''));
  if (gen !== S.platGeneration || !r.ok || !r.body) return;
  S.platforms = r.body.platforms;
  platformOptions(p.inputs[0], S.platforms);
  platformHelp();
}

/* The profile chosen in the form ('' = the default). */
function chosenProfile() {
  return S.controls.profile ? S.controls.profile.inputs[0].value : '';
}

/* Under Platform: a datasheet board's facts, or the level's calibrated
 * spans in the chosen profile's set (calibration.js chosenLevels), the set
 * that answers and whose spans the warnings name. */
function platformHelp() {
  const c = S.controls.platform;
  if (!c) return;
  const board = S.platforms.find((p) => p.name === c.inputs[0].value);
  if (board && board.answered_from === 'datasheet') {
    const facts = [board.memory_gb && `${fmt(board.memory_gb)} GB`, board.bandwidth_tb_s && `${fmt(board.bandwidth_tb_s)} TB/s`,
      board.bf16_tflops && `${fmt(board.bf16_tflops)} TFLOPS BF16`, board.board_power_limit_w && `${fmt(board.board_power_limit_w)} W`];
    $('f-platform-help').textContent = `no fitted level: answered from its datasheet (${facts.filter(Boolean).join(', ')})`;
    return;
  }
  const levels = chosenLevels();
  const lvl = levels && levels.find((l) => l.name === c.inputs[0].value);
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
  /* The radio pair sits under the group's own "Load" legend: its legend
   * names it for screen readers only, so the heading is not shown twice. */
  const mode = el('fieldset', { class: 'load-mode' }, el('legend', { class: 'sr-only', text: 'Kind of load' }),
    ['concurrency', 'rate'].map((m) => el('label', {},
      el('input', { type: 'radio', name: 'load-mode', value: m, checked: m === 'concurrency',
        onchange: syncLoad }), m === 'concurrency' ? ' closed loop' : ' open loop')));
  return [mode, ...boxes];
}

function loadMode() {
  const r = document.querySelector('input[name="load-mode"]:checked');
  return r ? r.value : 'concurrency';
}

/* Closed loop: n is the requests running. Open loop: the rate, and n is
 * the engine's limit on running requests (its max_num_seqs), optional, as
 * the API takes it (docs/http-api.md, `concurrency` with `rate`), so a
 * link with both keeps both. `user` is a click on the radio pair: the
 * closed loop's n is not a limit the planner chose, so it is set aside
 * (and given back on returning to the closed loop). */
const LOAD_TEXT = {
  concurrency: ['Requests running', 'closed loop: requests being served at once'],
  limit: ['Engine limit on running requests', 'open loop: the engine’s limit (vLLM max_num_seqs); empty = no limit'],
};

function syncLoad(ev) {
  const mode = loadMode();
  const c = S.controls.concurrency, r = S.controls.rate;
  if (r) { r.box.hidden = mode !== 'rate'; r.inputs[0].disabled = r.box.hidden; }
  if (!c) return;
  const open = mode === 'rate' && !!r;
  if (ev && ev.type === 'change') {
    const i = c.inputs[0];
    if (open) { c.closedValue = i.value; i.value = ''; } else if (i.value === '' && c.closedValue !== undefined) i.value = c.closedValue;
  }
  const [label, help] = LOAD_TEXT[open ? 'limit' : 'concurrency'];
  c.box.querySelector('label').firstChild.textContent = label;
  c.box.querySelector('.help').textContent = help;
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

/* The whole configuration of a request, as "Add to comparison" pins it
 * (docs/planner.md, "Comparison"): every configuration field the form
 * has, those at the API's default named too -- its default value (tp 1,
 * kv_cache bf16), the default profile's name, or null, "not set" (no
 * clock lock, no cap, the model's own weights) -- so that no later value
 * of the form fills them in (answers.js withBase). The platform, the
 * model and TP first, the profile last, as a link's cmp= reads. */
function pinnedPart(req) {
  const all = configPart(req);
  for (const f of FIELDS) {
    if (f.group !== 'config' || f.kind === 'model' || !S.controls[f.name] || all[f.name] !== undefined) continue;
    const p = S.request[f.name] || {};
    all[f.name] = f.kind === 'profile' ? S.defaultProfile : p.default !== undefined ? p.default : null;
  }
  const first = ['platform', 'model', 'active_params_b', 'architecture', 'tp'];
  const keys = [...first, ...Object.keys(all).filter((k) => !first.includes(k) && k !== 'profile'), 'profile'];
  return Object.fromEntries(keys.filter((k) => all[k] !== undefined).map((k) => [k, all[k]]));
}

function sharedPart(req) {
  const out = {};
  for (const [k, v] of Object.entries(req)) if (groupOf(k) !== 'config') out[k] = v;
  return out;
}

function groupOf(name) {
  if (name === 'active_params_b' || name === 'architecture') return 'config';
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
  /* an open loop the request gives no limit has none */
  if (radio && lm === 'rate' && req.concurrency === undefined && S.controls.concurrency) setValue(S.controls.concurrency.inputs[0], '');
  syncLoad();
  platformHelp();
  followProfile();
  followPlatforms();
  markStale();
}

/* ------------------------------------------------- the URL (shareable) */

/* Query: the request's fields by their API names, plus one `cmp` per
 * compared configuration as "key:value;key:value". */
function enc(s) {
  return encodeURIComponent(s).replace(/%3A/g, ':').replace(/%3B/g, ';').replace(/%2C/g, ',').replace(/%2F/g, '/');
}

/* An object field (the "Other" model's architecture) travels as one key
 * per property, "architecture.layers" (docs/planner.md, "Shareable state"). */
function flat(obj) {
  return Object.entries(obj).flatMap(([k, v]) => (v && typeof v === 'object' && !Array.isArray(v)
    ? Object.entries(v).map(([s, x]) => [`${k}.${s}`, x]) : [[k, v]]));
}

/* The boxes the page fills in on its own (FIELDS' `value`: the running
 * count, the token lengths) that the user emptied: the link names them
 * with nothing after "=", as "key:" names a pinned field not set, so that
 * reopening it empties them rather than fill in the page's 512 + 256
 * (docs/planner.md, "Shareable state"). A configuration field's page
 * value is the API's default (TP 1), which a key left out restores; an
 * open loop's empty limit is "none", which a link without it gives. */
function emptiedKeys(req) {
  return FIELDS.filter((f) => f.value !== undefined && f.group !== 'config' && req[f.name] === undefined
    && S.controls[f.name] && S.controls[f.name].inputs.every((i) => !i.hidden && !i.disabled && i.value.trim() === '')
    && !(f.name === 'concurrency' && loadMode() === 'rate')).map((f) => f.name);
}

/* "Other" with its active parameters empty sends neither `model` nor
 * `active_params_b` (the API refuses it under active_params_b): its link
 * names it `model=Other`, which reopens as "Other" with the box empty and
 * the same refusal, not as the page's default model answered
 * (docs/planner.md, "Shareable state"). */
function linkedRequest(req) {
  const m = S.controls.model;
  if (!m || !S.request.model || m.inputs[0].value !== '' || req.model !== undefined || req.active_params_b !== undefined) return req;
  const entries = Object.entries(req);
  entries.splice(entries.findIndex(([k]) => k === 'platform') + 1, 0, ['model', 'Other']);
  return Object.fromEntries(entries);
}

function stateQuery(req) {
  const parts = flat(linkedRequest(req)).map(([k, v]) => `${enc(k)}=${enc(String(v))}`);
  for (const k of emptiedKeys(req)) parts.push(`${enc(k)}=`);
  /* an open loop without its rate is still an open loop: "rate=" reopens
   * it so, not as a closed loop at the limit (docs/planner.md) */
  if (loadMode() === 'rate' && S.controls.rate && req.rate === undefined) parts.push('rate=');
  /* a pinned field that is not set is "key:" (parseQuery); the entries
   * waiting past the four compared stay in the link (docs/planner.md) */
  for (const c of [...S.compare, ...S.waiting])
    parts.push(`cmp=${enc(flat(c).map(([k, v]) => `${k}:${v === null ? '' : v}`).join(';'))}`);
  return parts.join('&');
}

function typed(name, text) {
  const p = S.request[name];
  const t = p && [].concat(p.type)[0];
  if ((t === 'number' || t === 'integer') && text.trim() !== '' && Number.isFinite(Number(text))) return Number(text);
  if (t === 'boolean') return text === 'true';
  return text;
}

/* A link's platform or model in another letter case (`h100`,
 * `qwen3-8b`) is the catalog's entry, as the API matches names
 * (docs/http-api.md, `platform` and GET /v1/models): the form selects
 * that option, with its span and facts under it, and rows carry its name. */
function catalogName(k, v) {
  const list = k === 'platform' ? S.platforms : k === 'model' ? S.models : null;
  if (!list || typeof v !== 'string') return v;
  const hit = list.find((x) => x.name.toLowerCase() === v.toLowerCase());
  return hit ? hit.name : v;
}

/* One query key into a request: "architecture.layers" into its object. */
function putQuery(req, k, v) {
  const [head, sub] = k.split('.');
  const p = S.request[head];
  if (!p) return;
  if (sub === undefined) { req[head] = catalogName(head, typed(head, v)); return; }
  if ([].concat(p.type)[0] !== 'object') return;
  req[head] = Object.assign(req[head] || {}, { [sub]: v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : v });
}

/* A link's "model=Other" is the form's own "Other" (docs/planner.md,
 * "Shareable state"): no catalog name, the active parameters and the
 * architecture given, as the page's own link (no model key) is. The form
 * shows "Other" even without active parameters (its empty box is what the
 * API's message names); a compared entry without them keeps the name,
 * which the API refuses, rather than take the form's model. A catalog
 * model of that name keeps it. */
function otherModel(req, form) {
  if (typeof req.model !== 'string' || req.model.toLowerCase() !== 'other' || S.models.some((m) => m.name === req.model)) return req;
  if (req.active_params_b === undefined && !form) return req;
  delete req.model;
  if (req.active_params_b === undefined) req.active_params_b = '';
  return req;
}

function parseQuery(search) {
  const q = new URLSearchParams(search);
  const req = {};
  const cmp = [];
  for (const [k, v] of q) {
    if (k === 'cmp') {
      const c = {};
      /* "key:" is a field pinned as not set (pinnedPart); a key a link
       * does not name is the form's (an older link's cmp=platform:H100) */
      for (const kv of v.split(';')) {
        const i = kv.indexOf(':');
        if (i > 0 && kv.slice(i + 1) === '' && S.request[kv.slice(0, i)]) c[kv.slice(0, i)] = null;
        else if (i > 0) putQuery(c, kv.slice(0, i), kv.slice(i + 1));
      }
      if (Object.keys(c).length) cmp.push(otherModel(c, false));
    } else putQuery(req, k, v);
  }
  /* Past MAX_COMPARE an entry waits: named on the page, kept in the link,
   * compared when a row is removed (docs/planner.md, "Comparison"). */
  return { req: otherModel(req, true), cmp: cmp.slice(0, MAX_COMPARE), waiting: cmp.slice(MAX_COMPARE) };
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
  const path = String(field).replace(/^\//, '').split(':')[0];
  if (S.controls[path] && path.includes('/')) return S.controls[path];
  const name = path.split('/')[0];
  /* The clock a power cap settles at is the answer's sm_clock_mhz
   * (docs/http-api.md): with a cap and no lock, its messages concern the cap. */
  if (name === 'sm_clock_mhz' && S.controls.power_cap_w) {
    const req = formRequest();
    if (req.sm_clock_mhz === undefined && req.power_cap_w !== undefined) return S.controls.power_cap_w;
  }
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
  let c = e.field !== undefined && e.field !== '' ? controlFor(e.field) : null;
  /* "Other" without its architecture (docs/http-api.md, missing_architecture
   * on /model): what is missing is the architecture, so its first box. */
  if (e.code === 'missing_architecture' && S.controls['architecture/layers'] && formRequest().active_params_b !== undefined)
    c = S.controls['architecture/layers'];
  /* In an open loop with no engine limit the load missing is the arrival
   * rate, not the limit, whose box says "empty = no limit" (docs/planner.md,
   * "Warnings and errors next to their input"); a limit given is itself at fault. */
  if (c === S.controls.concurrency && loadMode() === 'rate' && S.controls.rate && formRequest().concurrency === undefined)
    c = S.controls.rate;
  const msg = e.message || 'the server refused the request';
  if (c && c.box) {
    c.box.querySelector('.field-error').textContent = msg;
    for (const i of c.inputs || c.box.querySelectorAll('input, select')) if (!i.hidden) i.setAttribute('aria-invalid', 'true');
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
