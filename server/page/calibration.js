/*
 * wattcast planner page, calibration.js (docs/planner.md, "Calibration
 * view"): the parameter set of the profile chosen in the form, as the
 * calibration view and the header's line show it, and the levels the
 * Platform help reads its calibrated spans from. A classic script loaded
 * with defer after panels.js; start() in page.js calls it once every
 * script has run.
 */
'use strict';

/* ---------------------------------------------------------- calibration */

function scalarText(s) {
  if (!s || typeof s !== 'object' || typeof s.value !== 'number') return '—';
  return `${fmt(s.value, sciGroup(s.value, s.ci95))}${s.ci95 ? ' ' + fmtInterval(s.ci95, s.value) : ''}`;
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
  /* a list's element by its name, or a workload by its set (levels[H200].eta, workloads[gpqa]), as the API's labels */
  for (const [k, v] of Object.entries(obj)) {
    const id = Array.isArray(obj) && v && [v.name, v.set].find((x) => typeof x === 'string');
    scalarsUnder(v, id ? `${prefix}[${id}]` : prefix ? `${prefix}.${k}` : k, out);
  }
  return out;
}

/* The calibration view follows the profile chosen in the form: the answer
 * comes from that profile's set, so the numbers behind it must be that
 * set's too (docs/planner.md, "Calibration view"). Called when the choice
 * changes and whenever the form is set (a link, a comparison's Load). */
async function followProfile() {
  const want = chosenProfile();
  if (want === S.calProfile) return;
  S.calProfile = want;
  const gen = ++S.calGeneration;
  $('calibration').dataset.state = 'busy';
  /* Until the chosen set is read, nothing of the set before is said to
   * be its (header line, Platform help). */
  S.set = { profile: want, body: null };
  $('params-line').textContent = `Reading the parameter set of profile ${want || S.defaultProfile || 'default'}…`;
  platformHelp();
  const r = await api('/v1/params' + (want ? `?profile=${encodeURIComponent(want)}` : ''));
  if (gen !== S.calGeneration) return;
  if (r.ok && r.body && r.body.params) { renderCalibration(r.body); return; }
  const msg = ((r.body || {}).error || {}).message || `the server answered ${r.status || 'nothing'}`;
  $('calibration-profile').textContent = `Profile ${want}: its parameter set could not be read (${msg}).`;
  $('params-line').textContent = `Profile ${want}: its parameter set could not be read.`;
  $('calibration-body').replaceChildren();
  $('calibration').dataset.profile = want;
  $('calibration').dataset.state = 'error';
}

/* The set that answers, in the header: the chosen profile's (docs/planner.md, "Calibration view"). */
function setLine(resp) {
  return `Parameter set ${resp.name} (version ${resp.params_version}, ${resp.n_draws} bootstrap draws) from ${resp.source}.`;
}

/* The levels of the chosen profile's set, once read (null before): the
 * Platform help's calibrated spans are that set's (form.js platformHelp). */
function chosenLevels() {
  const b = S.set && S.set.profile === chosenProfile() ? S.set.body : null;
  return b && b.params && Array.isArray(b.params.levels) ? b.params.levels : null;
}

/* Which profile the view shows, in words: a server of one set has no
 * profile choice. */
function profileLine(resp) {
  if (!S.profiles) return `The served parameter set, ${resp.name}.`;
  if (S.calProfile && resp.name !== S.defaultProfile)
    return `Profile ${resp.name}, chosen in the form (the default is ${S.defaultProfile}).`;
  return `Profile ${resp.name}, the default; choosing another profile in the form shows its set here.`;
}

/* Model terms (docs/calibration.md): a calibrated shift in z for one model
 * on one platform, applied whenever a request names that model there. */
function modelTermsTable(p) {
  const list = p.model_terms || [];
  const rows = list.length ? list.map((t) => el('tr', { 'data-term': `${t.model}@${t.level}` },
    el('th', { scope: 'row', text: t.model }), el('td', { text: t.level }),
    t.shift ? scalarCell(t.shift) : el('td', { text: '—' }),
    el('td', { class: 'num', text: t.runs !== undefined && t.runs !== null ? String(t.runs) : '—' })))
    : [el('tr', {}, el('td', { colspan: '4', class: 'muted', text: 'none (wattcast calibrate --scope model makes them)' }))];
  return el('table', { class: 'values', id: 'cal-model-terms' },
    el('caption', { text: 'Model terms (a shift in z, applied when a request names the model on that platform)' }),
    el('thead', {}, el('tr', {}, ['model', 'platform', 'shift (z)', 'runs'].map((h) => el('th', { scope: 'col', text: h })))),
    el('tbody', {}, rows));
}

function renderCalibration(resp) {
  const p = resp.params;
  const body = $('calibration-body');
  S.set = { profile: S.calProfile, body: resp };
  $('params-line').textContent = setLine(resp);
  platformHelp();
  $('calibration-profile').textContent = profileLine(resp);
  $('calibration').dataset.profile = resp.name;
  $('calibration').dataset.state = 'done';
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
  const known = ['schema', 'name', 'form', 'clock_ref_mhz', 'levels', 'shared', 'precision_terms', 'model_terms',
    'provenance', 'draws'];
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
    el('div', { class: 'scroll' }, levels), el('div', { class: 'cal-row' }, el('div', { class: 'scroll' }, shared), legend),
    el('div', { class: 'scroll' }, terms), el('div', { class: 'scroll' }, modelTermsTable(p)), ...extra.map((t) => el('div', { class: 'scroll' }, t)));
}
