/*
 * wattcast planner page, answers.js (docs/planner.md): predict (one
 * inference request and one batch for the rest), the answer table, the
 * comparison table and the plots against concurrency. A classic script
 * loaded with defer after page.js and form.js, whose declarations it uses;
 * start() in page.js calls it once every script has run.
 */
'use strict';

/* ------------------------------------------------------------- predict */

function setStatus(state, text) {
  const s = $('status');
  s.dataset.state = state;
  s.textContent = text;
}

/* The status a computation ends with. Inputs edited while it was in
 * flight are judged against it, not against "Computing…" (docs/planner.md,
 * "An answer of earlier inputs"): after a refusal nothing is shown to be
 * stale, after an answer the edits mark it. */
function settleStatus(state, text) {
  setStatus(state, text);
  S.changed = false;
  S.shownStatus = null;
  markStale();
}

/* A refusal, the server's or the page's own: no number of another
 * configuration stays on screen (docs/planner.md, "Warnings and errors
 * next to their input"); the link is the configuration shown, refused
 * values and all ("Shareable state"). */
function showRefusal(req, pushUrl, body, why, pin) {
  clearAnswer();
  clearCompare();
  $('plot-list').replaceChildren(el('p', { class: 'muted', text: 'No plots: the configuration was refused.' }));
  followPanels();
  if (body) showError(body);
  /* a box the browser cannot read has nothing to link: the link keeps
   * the last configuration sent (docs/planner.md, "Shareable state") */
  if (req) updateLink(req, pushUrl);
  /* "Add to comparison" pins only a configuration the server answered
   * (docs/planner.md, "Comparison"): a refused one is said unpinned */
  settleStatus('error', pin ? `Nothing was pinned: ${why}. Only a configuration the server answers is added to the comparison.`
    : `Nothing was computed: ${why}.`);
  S.runs++;
  $('status').dataset.runs = S.runs;
}

/* pin: "Add to comparison" asked, so the form's configuration is pinned
 * once the server answers it, and not when it is refused. */
async function predict(pushUrl, pin) {
  const gen = ++S.generation;
  clearMessages();
  const req = formRequest();
  S.asked = inputState();
  markStale();
  const unread = refuseUnreadable($('fields'));
  if (unread.length) {
    showRefusal(null, pushUrl, null, `${unread.join(', ')} ${unread.length > 1 ? 'are' : 'is'} not a number, so the request was not sent`, pin);
    return;
  }
  /* An open loop is the arrival rate and the engine's limit: without the
   * rate, a limit sent alone is read as a closed loop at that n, so the
   * page refuses it unsent (docs/planner.md, "Warnings and errors next to
   * their input"). */
  if (loadMode() === 'rate' && S.controls.rate && req.rate === undefined) {
    showRefusal(req, pushUrl, { error: { code: 'missing_field', field: '/rate',
      message: 'rate: required in an open loop (requests/s); the engine limit alone is not a load' } },
    'the arrival rate is empty (open loop)', pin);
    return;
  }
  setStatus('busy', 'Computing…');
  const r = await api('/v1/predict/inference', req);
  if (gen !== S.generation) return;
  if (!r.ok) {
    showRefusal(req, pushUrl, r.body, refusalText(r), pin);
    return;
  }
  if (pin && S.compare.length < MAX_COMPARE) S.compare.push(pinnedPart(req));
  renderAnswer(r.body, req);
  updateLink(req, pushUrl);
  followPanels();
  const batch = await runBatch(req);
  if (gen !== S.generation) return;
  renderCompare(req, r.body, batch);
  renderPlots(batch);
  S.runs++;
  $('status').dataset.runs = S.runs;
  const at = `from parameter set ${r.body.params_version || ''} at ${new Date().toLocaleTimeString()}`;
  /* the answer stands; the curves and compared rows the batch was refused
   * are said missing in the status too, not "Computed" (docs/planner.md) */
  const missed = refusedPoints(batch);
  if (batch.refused) settleStatus('error', `Computed the answer ${at}, but not the plots or the compared configurations: ${refusalText(batch.refused)}.`);
  else if (missed) settleStatus('done', `Computed ${at}; ${missed}.`);
  else settleStatus('done', `Computed ${at}.`);
}

/* One batch for everything else: each configuration (the form's and the
 * compared ones) over the concurrency grid, and each compared one at the
 * form's load. */
async function runBatch(req) {
  const shared = sharedPart(req);
  const curveShared = Object.assign({}, shared);
  delete curveShared.rate;
  const configs = [configPart(req), ...S.compare.map((c) => withBase(configPart(req), c))];
  /* the form's n, when it is the load (in an open loop it is a limit) */
  const grid = gridTo(req.rate === undefined ? Number(req.concurrency) : NaN);
  const items = [];
  const index = { curves: [], rows: [] };
  configs.forEach((c, i) => {
    index.curves.push(grid.map((n) => items.push(Object.assign({}, c, curveShared, { concurrency: n })) - 1));
    if (i > 0) index.rows.push(items.push(Object.assign({}, c, shared)) - 1);
  });
  const r = await api('/v1/predict/batch', items);
  const results = r.ok && r.body && Array.isArray(r.body.results) ? r.body.results : null;
  return { configs, grid, index, results, error: results ? null : r.body, refused: results ? null : r };
}

/* The inputs as the planner set them: the request and the kind of load
 * (a switch of loop with the same numbers is a change too). */
function inputState() {
  return JSON.stringify([loadMode(), formRequest()]);
}

/* An answer on screen is of the inputs last sent; once they differ it is
 * marked stale until Enter or Predict computes (docs/planner.md, "What the page asks and shows").
 * After a refusal nothing is on screen to be stale: the status says the
 * inputs changed and keeps the refusal it replaced. */
function markStale() {
  const changed = S.asked !== null && S.asked !== inputState();
  const stale = changed && S.answered;
  const was = S.changed;
  S.changed = changed;
  document.body.dataset.stale = String(stale);
  $('stale-note').hidden = !stale;
  if (changed && !was) S.shownStatus = [$('status').dataset.state, $('status').textContent];
  if (stale) setStatus('stale', 'Inputs changed: press Predict (or Enter) to compute them; '
    + 'the answer, comparison and plots shown are of the earlier inputs.');
  else if (changed && S.shownStatus) setStatus(S.shownStatus[0], 'Inputs changed: press Predict (or Enter) to compute them. '
    + `Earlier inputs: ${S.shownStatus[1].charAt(0).toLowerCase()}${S.shownStatus[1].slice(1)}`);
  else if (was && S.shownStatus) setStatus(...S.shownStatus);
}

function clearAnswer() {
  S.answered = false;
  $('node-power').textContent = '—';
  $('node-power-interval').textContent = '';
  $('answer-table').tBodies[0].replaceChildren();
}

/* Every quantity of an answer: [key, leaf, value, interval, covers]
 * (nested objects of numbers are flattened as "parent.key"). A quantity's
 * interval is its block's entry of the same name (a block with its own
 * interval_95, such as capacity, uses it), or the one PATH_LABELS names
 * (capacity.cost.per_hour: capacity.interval_95.cost_per_hour); a
 * top-level quantity a block gives the interval of (mean_running) takes it. */
function quantities(answer) {
  const out = [];
  const top = answer.interval_95 || {};
  const blocks = Object.values(answer).filter((v) => v && typeof v === 'object' && !Array.isArray(v) && v.interval_95)
    .map((v) => v.interval_95);
  const has = (b, n) => b && b[n] !== undefined && b[n] !== null;
  const walk = (obj, prefix, ivs, block) => {
    for (const [k, v] of Object.entries(obj)) {
      if (!prefix && ANSWER_SKIP.includes(k)) continue;
      if (prefix && (k === 'interval_95' || k === 'warnings')) continue;
      const key = prefix ? `${prefix}.${k}` : k;
      const name = (PATH_LABELS[key] && PATH_LABELS[key][2]) || k;
      const src = [ivs, block].find((b) => has(b, name)) || (prefix ? null : blocks.find((b) => has(b, name)));
      const ivv = src ? src[name] : has(top, key) ? top[key] : undefined;
      /* what the interval covers: per quantity when the block says, else
       * the block's (docs/intervals.md) */
      const by = src && src.covers_by_quantity;
      /* no interval: the API's reason ("none: ...") from the block that
       * would hold it, as the flexibility panel shows it */
      const why = (b) => b && b.covers_by_quantity && b.covers_by_quantity[name];
      const cov = ivv ? (by && by[name]) || (src && src.covers) || top.covers || ''
        : [ivs, block].concat(prefix ? [] : blocks).map(why).find(Boolean) || '';
      /* a `<name>_ci95` pair beside it is its own interval (a calibrated
       * fine-tuning law's factor_ci95, docs/http-api.md): it covers the
       * runs' scatter and the base's draws, not the prediction's parameters */
      const ci = Array.isArray(obj[`${k}_ci95`]) && obj[`${k}_ci95`].length === 2 ? obj[`${k}_ci95`] : null;
      if (typeof v === 'number' && ci) out.push([key, k, v, ci, 'the calibration: the base law’s draws and the runs’ scatter']);
      else if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'string') out.push([key, k, v, ivv, cov]);
      /* a nested block without its own interval_95 takes the interval of a
       * block it sits in, never the top-level one: a fine-tuning answer's
       * relations are checks, not the prediction, and have none
       * (docs/finetune.md, "Which figure is the prediction") */
      else if (v && typeof v === 'object' && !Array.isArray(v)) walk(v, key, v.interval_95 || (ivs && ivs[k]), v.interval_95 || (prefix ? block : null));
    }
  };
  walk(answer, '', top, top);
  return out;
}

/* The clock the answer is at (docs/http-api.md, `config`): locked, settled
 * under the power cap or the board's limit, or -- where no clock meets it
 * (`power_limit_met` false) -- the clock of least power, as the CLI says;
 * and a cap that does not bind. */
function clockRows(a, req) {
  const c = a.config || {};
  const rows = [];
  const cap = req.power_cap_w !== undefined ? c.power_cap_w : undefined;
  /* a series whose steps settle at different clocks answers a range
     (docs/http-api.md, "The prediction object"); null top: steps run free */
  const range = Array.isArray(c.sm_clock_range_mhz) && typeof c.sm_clock_range_mhz[0] === 'number'
    ? c.sm_clock_range_mhz : null;
  if (typeof c.sm_clock_mhz === 'number' || range) {
    const board = typeof c.board_power_limit_w === 'number';
    const limit = board ? `the board’s ${fmt(c.board_power_limit_w)} W power limit` : `the ${fmt(cap)} W power cap per GPU`;
    /* "locked" only where the answer runs at the lock asked: a lock the
       board's limit or the cap lowered is settled under it, as the CLI says */
    const locked = req.sm_clock_mhz !== undefined && typeof c.sm_clock_mhz === 'number'
      && Math.abs(c.sm_clock_mhz - req.sm_clock_mhz) < 0.5;
    const why = locked ? 'locked'
      : !board && typeof cap !== 'number' ? ''
        : c.power_limit_met === false ? `the clock of least power, still above ${limit}`
          : `settled under ${limit}${range ? ' on the steps it binds on' : ''}`;
    const shown = !range ? `${fmt(c.sm_clock_mhz)} MHz`
      : typeof range[1] === 'number' ? `${fmt(range[0])}–${fmt(range[1])} MHz over the series`
        : `${fmt(range[0])} MHz to free over the series`;
    rows.push([range ? 'config.sm_clock_range_mhz' : 'config.sm_clock_mhz', 'SM clock answered at', shown, why]);
  }
  if (typeof cap === 'number' && typeof c.sm_clock_mhz !== 'number' && !range)
    rows.push(['config.power_cap_w', 'Power cap per GPU', `${fmt(cap)} W`, 'does not bind: the GPU runs at its free clock']);
  return rows;
}

function renderAnswer(a, req) {
  clearAnswer();
  S.answered = true;
  const iv = a.interval_95;
  $('node-power').textContent = `${fmt(a.node_power_w)} W`;
  $('node-power-interval').textContent = iv && iv.node_power_w
    ? `95 % interval ${fmtInterval(iv.node_power_w, a.node_power_w)} W (covers ${iv.covers || 'parameters'}; ${iv.draws} draws)`
    : 'no interval: see the warnings';
  const body = $('answer-table').tBodies[0];
  for (const [key, leaf, v, ivv, cov] of quantities(a)) {
    const [label, unit] = rowLabel(key, leaf, key.includes('.') ? key.split('.')[0] : '');
    body.append(el('tr', { 'data-key': key }, el('th', { scope: 'row', text: label }),
      el('td', { class: 'num', text: shownValue(v, unit, ivv) }),
      el('td', { class: 'num', text: fmtInterval(ivv, v) || (cov ? 'none' : '') }),
      el('td', { class: 'covers', text: cov })));
  }
  for (const [key, label, shown, why] of clockRows(a, req || {}))
    body.append(el('tr', { 'data-key': key }, el('th', { scope: 'row', text: label }),
      el('td', { class: 'num', text: shown }), el('td', { class: 'num' }), el('td', { class: 'covers', text: why })));
  showWarnings(answerWarnings(a));
}

/* An answer's warnings and those of its blocks (capacity, ...): a compared
 * row shows them as the form's answer does (docs/planner.md). */
function answerWarnings(a) {
  return a ? [].concat(a.warnings || [], ...Object.values(a)
    .filter((v) => v && typeof v === 'object' && Array.isArray(v.warnings)).map((v) => v.warnings)) : [];
}

/* ---------------------------------------------------------- comparison */

function describe(c) {
  const parts = [c.platform, c.model || (c.active_params_b !== undefined ? `${c.active_params_b} B` : '')];
  /* A request leaves out a value equal to the API's default, and a pinned
     row names it (form.js pinnedPart): either way a row says only what is
     not the default, so rows read alike; the group size is said anyway. */
  parts.push(`TP ${c.tp !== undefined ? c.tp : 1}`);
  const dflt = (k, v) => v === null || (k === 'profile' ? v === S.defaultProfile
    : S.request[k] && S.request[k].default !== undefined && v === S.request[k].default);
  for (const [k, v] of Object.entries(c))
    if (!['platform', 'model', 'active_params_b', 'tp'].includes(k) && !dflt(k, v))
      parts.push(v && typeof v === 'object' ? flat({ [k]: v }).map(([a, x]) => `${a} ${x}`).join(' · ') : `${k} ${v}`);
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
  const load = req.rate !== undefined ? `${fmt(req.rate)} requests/s${req.concurrency !== undefined ? ` (limit n = ${fmt(req.concurrency)})` : ''}`
    : req.concurrency !== undefined ? `n = ${fmt(req.concurrency)}` : '';
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
        onclick: () => { S.compare.splice(r.i, 1); if (S.waiting.length) S.compare.push(S.waiting.shift()); predict(true); } })];
    body.append(el('tr', { 'data-row': r.label },
      el('td', {}, swatch, ` ${r.label}`),
      el('td', { class: 'config', text: describe(r.config) }),
      err ? el('td', { class: 'field-error', colspan: fields.length, text: err.message || 'error' })
        : fields.map((f) => {
          const [v, iv] = pick(r.answer, f);
          return el('td', { class: 'num', 'data-key': f, 'data-label': labelOf(f) },
            typeof v === 'number' ? `${fmt(v, sciGroup(v, iv))} ${fmtInterval(iv, v)}` : '—');
        }),
      el('td', {}, el('ul', { class: 'warnings' }, answerWarnings(r.answer).map((w) => el('li', { text: w })))),
      el('td', {}, actions)));
  });
  $('add-compare').disabled = S.compare.length >= MAX_COMPARE;
  showWaiting(req);
}

/* The link's compared configurations past the four shown: said, not lost. */
function showWaiting(req) {
  const w = $('compare-waiting');
  w.hidden = !S.waiting.length;
  w.textContent = S.waiting.length ? `The link names ${S.compare.length + S.waiting.length} configurations to compare; `
    + `${MAX_COMPARE} are compared at a time. Left out for now, kept in the link: `
    + `${S.waiting.map((c) => describe(withBase(configPart(req), c))).join('; ')}. Removing a row compares the next.` : '';
}

function clearCompare() {
  showWaiting(formRequest());
  $('compare-table').tHead.replaceChildren();
  $('compare-table').tBodies[0].replaceChildren();
}

/* A compared configuration: the entry's fields over the chosen one's, so a
 * link may name only what differs ("cmp=platform:H100"); a field the entry
 * pins as not set (null: form.js pinnedPart) is left out. A clock lock and
 * a cap are one choice (the API takes one of them): an entry naming one
 * does not take the form's other. */
function withBase(base, entry) {
  const c = Object.assign({}, base);
  if (entry.model !== undefined) { delete c.active_params_b; delete c.architecture; }
  if (entry.active_params_b !== undefined) delete c.model;
  if (entry.sm_clock_mhz !== undefined) delete c.power_cap_w;
  if (entry.power_cap_w !== undefined) delete c.sm_clock_mhz;
  Object.assign(c, entry);
  for (const k of Object.keys(c)) if (c[k] === null) delete c[k];
  return c;
}

/* The form's configuration is pinned when the server answers it (predict):
 * neither a box the browser cannot read (it would be pinned as not set)
 * nor a configuration the server refuses is pinned (docs/planner.md,
 * "Comparison"). */
function addCompare() {
  if (S.compare.length >= MAX_COMPARE) return;
  predict(true, true);
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
function drawChart(box, spec, padR) {
  const W = Math.max(280, Math.min(box.clientWidth || 640, 900));
  const H = Math.round(Math.max(220, Math.min(W * 0.5, 340)));
  const m = { l: 58, r: padR || (spec.series.some((x) => x.short) ? 58 : 12), t: 12, b: 44 };
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
  /* every tick has its grid line; a label only every k-th, k the least
   * that keeps the widest label (about 7 px a character) clear of the
   * next: 1 ... 1e6 on a phone labels every fourth octave */
  const room = (W - m.l - m.r) / Math.max(1, (lx(x1) - lx(x0)) || 1);
  const span = xt.length > 1 ? Math.min(...xt.slice(1).map((v, i) => lx(v) - lx(xt[i]))) * room : Infinity;
  const wide = Math.max(0, ...xt.map((v) => fmt(v).length)) * 7 + 8;
  const every = Math.max(1, Math.ceil(wide / span));
  xt.forEach((v, i) => {
    g.append(svg('line', { x1: X(v), x2: X(v), y1: m.t, y2: H - m.b, class: 'grid' }));
    if ((xt.length - 1 - i) % every === 0)
      g.append(svg('text', { x: X(v), y: H - m.b + 16, 'text-anchor': 'middle', class: 'tick' }, document.createTextNode(fmt(v))));
  });
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
  /* The end labels inside the drawing whatever the font: measured once
   * drawn, the margin widened to the longest and drawn again. */
  const need = Math.max(0, ...[...g.querySelectorAll('text.direct')].map((t) => t.getComputedTextLength()));
  if (!padR && W - m.r + 4 + need > W - 2) drawChart(box, spec, Math.ceil(need) + 8);
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
      spec.series.map((s) => { const p = s.points[i] || {}; return el('td', { class: 'num', text: !Number.isFinite(p.y) ? (p.refused ? 'refused' : '—')
        : `${fmt(p.y, sciGroup(p.y, p.lo, p.hi))} ${Number.isFinite(p.lo) ? fmtInterval([p.lo, p.hi], p.y) : ''}` }); })))));
  const fig = el('figure', { id, class: 'plot' }, el('figcaption', { text: spec.title }), chart, legend,
    el('details', {}, el('summary', { text: 'Data' }), el('div', { class: 'scroll' }, table)));
  fig.redraw = () => drawChart(chart, spec);
  return fig;
}

/* The curve points the batch refused, said (docs/planner.md, "Plots"):
 * "2 of 41 plot points were refused and are left out (concurrency: ...)",
 * or '' when none was. */
function refusedPoints(batch) {
  if (!batch.results) return '';
  const idx = batch.index.curves.flat();
  const bad = idx.map((i) => batch.results[i]).filter((a) => a && a.error);
  if (!bad.length) return '';
  return `${bad.length} of ${idx.length} plot points were refused and are left out (${bad[0].error.message || bad[0].error.code})`;
}

function renderPlots(batch) {
  const list = $('plot-list');
  list.replaceChildren();
  if (!batch.results) {
    list.append(el('p', { class: 'error', text: batch.refused && batch.refused.status === 503 ? `No plots: ${refusalText(batch.refused)}.`
      : (batch.error && batch.error.error && batch.error.error.message) || 'the curves could not be computed' }));
    return;
  }
  /* the form's n, when it is the load (in an open loop it is a limit) */
  const fr = formRequest();
  const marker = fr.rate === undefined ? fr.concurrency : undefined;
  for (const c of CURVES) {
    const series = batch.configs.map((cfg, k) => ({
      name: k === 0 ? `chosen: ${describe(cfg)}` : `#${k}: ${describe(cfg)}`,
      short: k === 0 ? 'chosen' : `#${k}`, color: COLORS[k], dash: DASHES[k], width: k === 0 ? 3 : 2,
      points: batch.index.curves[k].map((i, j) => {
        const [y, iv] = pick(batch.results[i], c.field);
        return { x: batch.grid[j], y, lo: iv ? iv[0] : NaN, hi: iv ? iv[1] : NaN, refused: !!(batch.results[i] || {}).error };
      }),
    })).filter((s) => s.points.some((p) => Number.isFinite(p.y)));
    if (!series.length) continue;
    const fig = figure(`plot-${c.field}`, { title: c.title, x: 'requests running, n (log scale)', y: c.y, xlog: true, ylog: c.ylog, series, marker });
    list.append(fig);
    fig.redraw();
  }
  const missed = refusedPoints(batch);
  if (missed) list.prepend(el('p', { class: 'error', id: 'plot-refused', text: `${missed[0].toUpperCase()}${missed.slice(1)}.` }));
  if (!batch.results.some((a) => a && a.interval_95))
    list.append(el('p', { class: 'muted', text: 'No interval bands: the loaded parameter set has neither bootstrap draws nor a held-out error.' }));
}
