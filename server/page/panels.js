/*
 * wattcast planner page, panels.js (docs/planner.md): a panel for each
 * newer route the OpenAPI document has (its form from the request schema,
 * its answer as a table and plots). A classic script loaded with defer
 * after page.js, form.js and answers.js; start() in page.js calls it once
 * every script has run.
 */
'use strict';

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
    if (k === 'workload') { inputs[k] = workloadControls(id, example[k] || {}, form, p.useConfig && !!S.request.input_tokens); continue; }
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
    /* Left empty, a number takes the API's default, which the placeholder
     * names (docs/http-api.md): the page sends only what a planner set. */
    const c = ps.enum ? selectOf(id, ps.enum, example[k] !== undefined ? example[k] : ps.default)
      : el('input', { id, type: t === 'string' ? 'text' : 'number', step: 'any', 'data-kind': t, value: example[k] !== undefined ? example[k] : '',
        placeholder: ps.default !== undefined ? `default ${ps.default}` : null });
    inputs[k] = { c, t: ps.enum ? 'string' : t };
    form.append(fieldBox(k, humanize(k), unitOf(k), c, ps.description || ''));
  }
  const out = el('div', { 'aria-live': 'polite' });
  const err = el('p', { class: 'error', 'aria-live': 'assertive' });
  form.append(err, el('div', { class: 'buttons' }, el('button', { type: 'submit', text: 'Compute' })));
  /* The configuration's fields this route does not take (a power cap, the
   * GPU memory use, an "Other" model's architecture on the envelope): said
   * under the panel, not dropped silently (docs/planner.md). The token
   * lengths and the load go into the panel's workload. */
  const unused = el('p', { class: 'muted unused' });
  const showUnused = () => {
    const fed = props.workload ? ['concurrency', 'rate', 'input_tokens', 'output_tokens'] : [];
    const names = Object.keys(p.useConfig ? formRequest() : {})
      .filter((k) => !props[k] && !fed.includes(k) && !(p.ignores || []).includes(k))
      .map((k) => (FIELDS.find((f) => f.name === k) || { label: humanize(k) }).label);
    unused.textContent = names.length ? `Not used by this route, which does not take them: ${names.join(', ')}.` : '';
  };
  showUnused();
  const entry = { p, out, config: null, showUnused };
  S.panels.push(entry);
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    for (const n of form.querySelectorAll('.field-error')) n.textContent = '';
    for (const n of form.querySelectorAll('[aria-invalid]')) n.removeAttribute('aria-invalid');
    err.textContent = '';
    const config = p.useConfig ? formRequest() : {};
    const body = Object.assign({}, config);
    /* As the form does (docs/planner.md, "Warnings and errors next to
     * their input"): the answer is cleared, the message goes under the
     * control its field pointer names, marked and focused. */
    const refuse = (field, msg) => {
      out.replaceChildren();
      entry.config = null;
      const box = panelField(form, field);
      if (!box) { err.textContent = msg; return; }
      box.querySelector('.field-error').textContent = msg;
      const ins = [...box.querySelectorAll('input, select')];
      for (const i of ins) i.setAttribute('aria-invalid', 'true');
      if (ins.length) ins[0].focus();
    };
    /* a box the browser cannot read, the panel's or (for the configuration
     * it uses) the form's: refused under it, nothing sent (docs/planner.md) */
    const above = p.useConfig ? refuseUnreadable($('fields')).map((l) => `${l} (above)`) : [];
    const unread = [...refuseUnreadable(form), ...above];
    if (unread.length) {
      out.replaceChildren();
      entry.config = null;
      err.textContent = `Nothing was sent: ${unread.join(', ')} ${unread.length > 1 ? 'are' : 'is'} not a number.`;
      return;
    }
    for (const [k, i] of Object.entries(inputs)) {
      if (i.read) { const v = i.read(); if (v !== undefined) body[k] = v; continue; }
      const v = i.t === 'integer' ? integerOf(i.c, k) : valueOf(i.c, i.t, k);
      if (v.refused) { refuse(`/${k}`, v.refused); return; }
      Object.assign(body, v);
    }
    for (const k of Object.keys(body)) if (!props[k] || (p.ignores || []).includes(k)) delete body[k];
    showUnused();
    const r = await api(p.path, body);
    if (!r.ok) {
      const e = (r.body && r.body.error) || {};
      refuse(e.field, r.status === 503 ? `${refusalText(r)} (${e.message || 'busy'})` : e.message || `the server answered ${r.status}`);
      return;
    }
    entry.config = JSON.stringify(config);
    /* A figure is drawn once it is in the document (it takes the box's
     * width); a part an answer lacks is null and left out. */
    const parts = (p.render || answerView)(p, r.body).filter(Boolean);
    out.replaceChildren(...parts);
    for (const f of out.querySelectorAll('figure.plot')) requestAnimationFrame(() => f.redraw());
  });
  $('panels').append(el('section', { class: 'card wide panel', 'data-path': p.path },
    el('h2', { text: p.title }), p.useConfig ? el('p', { class: 'muted', text: props.workload
      ? 'Uses the configuration above and its token lengths; the arrivals are set here.' : 'Uses the configuration above.' }) : null,
    p.useConfig ? unused : null, form, out));
}

/* An integer box's request entry, exact: whole digits a JS number cannot
 * hold (a seed up to 2^63 - 1) are sent as typed (IntText), the API judging
 * their range as any other value's. Anything else is valueOf's, but a
 * fraction or exponent past 2^53, which would reach the API rounded to
 * another integer, is refused here under its box (docs/planner.md). */
function integerOf(c, k) {
  const v = c.value.trim();
  if (c.hidden || c.disabled || (c.validity && c.validity.badInput) || v === '') return valueOf(c, 'integer', k);
  const x = Number(v);
  if (/^[+-]?\d+$/.test(v)) return { [k]: Number.isSafeInteger(x) ? x : new IntText(v) };
  if (Number.isFinite(x) && Math.abs(x) > Number.MAX_SAFE_INTEGER) {
    return { refused: `${k}: ${v} is not exact past 2^53 with a fraction or exponent; write the whole number in digits` };
  }
  return valueOf(c, 'integer', k);
}

/* The panel's field a JSON pointer names ("/workload/output_tokens/mean"
 * is the output tokens' box): the longest leading part a shown box has. */
function panelField(form, pointer) {
  const parts = String(pointer || '').replace(/^\//, '').split('/').filter(Boolean);
  for (let n = parts.length; n > 0; n--) {
    const box = [...form.querySelectorAll('.field')].find((b) => b.dataset.field === parts.slice(0, n).join('/') && !b.hidden);
    if (box) return box;
  }
  return null;
}

/* Panels that take the configuration above: an answer for another
 * configuration than the form's is cleared (docs/planner.md), after a
 * computation or a refusal of the form. Their token boxes follow the form. */
function followPanels() {
  const now = JSON.stringify(formRequest());
  for (const e of S.panels) {
    e.showUnused();
    if (e.p.useConfig && e.config !== null && e.config !== now) {
      e.out.replaceChildren(el('p', { class: 'muted stale', text: 'The configuration above changed: Compute answers for it.' }));
      e.config = null;
    }
  }
  for (const f of S.panelFollow) f();
}

/* The workload a planner varies: its type, the arrival rate (open loop) or
 * the clients (closed loop), burstiness, and the mean token lengths (drawn
 * lognormal with sd = mean, as ShareGPT-like lengths are). With `fromConfig`
 * the token lengths are the form's (docs/planner.md, "Feature detection"):
 * shown, read-only, as the configuration above has them. Returns the panel
 * input: read() gives the request's workload object; an empty box is left
 * out, so the API names what is missing rather than answering for 0. */
function workloadControls(idp, ex, form, fromConfig) {
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
    rate: fieldBox('workload/rate', 'Arrival rate', 'requests/s', rate, 'requests arriving per second at one server'),
    concurrency: fieldBox('workload/concurrency', 'Clients', 'requests', conc, 'requests kept running (closed loop)'),
    burstiness: fieldBox('workload/burstiness', 'Burstiness', 'gamma shape', burst, 'below 1 is burstier than Poisson'),
  };
  const sync = () => {
    boxes.rate.hidden = type.value === 'closed';
    boxes.concurrency.hidden = type.value !== 'closed';
    boxes.burstiness.hidden = type.value !== 'bursty';
  };
  type.addEventListener('change', sync);
  const tokHelp = fromConfig ? 'from the configuration above' : '';
  form.append(fieldBox('workload', 'Workload', '', type, ''), boxes.rate, boxes.concurrency, boxes.burstiness,
    fieldBox('workload/input_tokens', 'Input tokens', 'mean per request', inTok, tokHelp),
    fieldBox('workload/output_tokens', 'Output tokens', 'mean per request', outTok, tokHelp));
  sync();
  /* The form's lengths, shown in the panel's (read-only) boxes. */
  const follow = () => {
    const req = formRequest();
    inTok.value = req.input_tokens !== undefined ? String(req.input_tokens) : '';
    outTok.value = req.output_tokens !== undefined ? String(req.output_tokens) : '';
  };
  if (fromConfig) {
    inTok.readOnly = outTok.readOnly = true;
    $('form').addEventListener('input', follow);
    S.panelFollow.push(follow);
  }
  const value = (c) => (c.validity && c.validity.badInput ? undefined : c.value.trim() === '' ? undefined
    : Number.isFinite(Number(c.value)) ? Number(c.value) : c.value);
  const length = (c) => { const m = value(c); return typeof m === 'number' ? { mean: m, sd: m } : m; };
  return { read: () => {
    if (fromConfig) follow();
    const w = { type: type.value };
    const put = (k, v) => { if (v !== undefined) w[k] = v; };
    put('input_tokens', length(inTok));
    put('output_tokens', length(outTok));
    if (type.value === 'closed') put('concurrency', value(conc));
    else put('rate', value(rate));
    if (type.value === 'bursty') put('burstiness', value(burst));
    return w;
  } };
}

/* A fleet of servers behind one feed: its size and how requests are
 * spread; size 1 or an empty box asks for one server (the API's default,
 * fleet left out); any other size is sent as typed, so the API names a
 * bad one under the box (docs/planner.md). */
function fleetControls(idp, ps, ex, form) {
  const props = schemaProperties(ps);
  const size = el('input', { id: `${idp}-size`, type: 'number', step: '1', min: '1', inputmode: 'numeric',
    value: ex && ex.size ? String(ex.size) : '1', placeholder: 'default 1 (one server)' });
  const modes = (props.mode && props.mode.enum) || ['independent'];
  const mode = selectOf(`${idp}-mode`, modes, ex && ex.mode ? ex.mode : modes[0]);
  form.append(fieldBox('fleet/size', 'Fleet size', 'servers', size, 'servers whose aggregate is simulated'),
    fieldBox('fleet/mode', 'Fleet mode', '', mode, 'independent: each its own arrivals; otherwise one balancer'));
  return { read: () => {
    const v = valueOf(size, 'integer', 'size').size;
    return v === undefined || v === 1 ? undefined : { size: v, mode: mode.value };
  } };
}

/* Blocks of an envelope or budget answer that echo the request or say where
 * its numbers come from (docs/http-api.md, "Envelopes"): folded under the
 * answer, so that they are not read as results. */
const ECHO_KEYS = ['config', 'workload', 'simulation', 'service_times', 'response', 'power_mapping'];

/* Metrics of an envelope's summary (docs/trace-metrics.md): label, unit. */
const SUMMARY_LABELS = {
  mean_w: ['Mean power', 'W'], p5_w: ['P5 power (5th percentile of the samples)', 'W'],
  p50_w: ['Median power', 'W'], p95_w: ['P95 power (95th percentile of the samples)', 'W'], max_w: ['Max power', 'W'],
  ramp_w_per_s: ['Ramp (mean |ΔP| between 1-s means)', 'W/s'], ramp_p95_w_per_s: ['Ramp, 95th percentile', 'W/s'],
  spectral_entropy: ['Spectral entropy (0–1)', ''], energy_j: ['Energy', 'J'],
  energy_per_output_token_j: ['Energy per output token', 'J'], mean_running: ['Mean requests running', ''],
  output_tokens: ['Output tokens', 'tokens'],
};

function summaryLabel(m) { return SUMMARY_LABELS[m] || [humanize(m), unitOf(m)]; }

/* A summary: each entry {value, p5, p95} or null (a trace too short). */
function isSummary(o) {
  return !!o && typeof o === 'object' && !Array.isArray(o) && Object.keys(o).length > 0 &&
    Object.values(o).every((v) => v === null || (typeof v === 'object' && 'value' in v && 'p5' in v));
}

/* An answer as a planner reads it: each block with a summary (the server's,
 * a fleet's) as its metrics, its predictive interval apart from the
 * Monte-Carlo spread (docs/envelopes.md, "Predictive interval") and its
 * band; then the other numbers (a budget's plan), the warnings and, folded,
 * the inputs echoed. */
function answerView(p, a) {
  const rest = Object.assign({}, a);
  for (const k of ECHO_KEYS) delete rest[k];
  const parts = [];
  const replicas = a.simulation && a.simulation.replicas;
  /* Why an interval is null is the API's to say, in its warning
   * `interval_95: none: …` (docs/http-api.md, "Envelopes"): shown with the
   * interval it concerns, and not again among the warnings. */
  const why = (a.warnings || []).filter((w) => /^interval_95: none: /.test(w));
  let said = false;
  for (const [k, b] of Object.entries(a)) {
    if (!b || typeof b !== 'object' || Array.isArray(b) || !isSummary(b.summary)) continue;
    parts.push(summaryTable(k, b.summary, replicas), predictiveBlock(k, b.interval_95, said ? null : why), binsFigure(p, k, b.bins));
    if (!b.interval_95 && why.length) {
      said = true;
      rest.warnings = (a.warnings || []).filter((w) => !why.includes(w));
    }
    rest[k] = Object.assign({}, b);
    for (const x of ['summary', 'interval_95', 'bins']) delete rest[k][x];
  }
  const echoed = ECHO_KEYS.filter((k) => a[k] && typeof a[k] === 'object');
  return [...parts, answerTable(rest), parts.length ? null : pointsFigure(p, a),
    echoed.length ? el('details', { class: 'echo' }, el('summary', { text: 'Inputs as the server read them, and where the numbers come from' }),
      echoed.map((k) => answerTable(a[k], humanize(k)))) : null];
}

function summaryTable(block, summary, replicas) {
  const rows = Object.entries(summary).map(([m, s]) => {
    const [label, unit] = summaryLabel(m);
    const u = unit ? ` ${unit}` : '';
    const has = (x) => s && typeof x === 'number';
    return el('tr', { 'data-key': `${block}.summary.${m}` }, el('th', { scope: 'row', text: label }),
      el('td', { class: 'num', text: has(s && s.value) ? `${fmt(s.value, sciGroup(s.value, s.p5, s.p95))}${u}` : '—' }),
      el('td', { class: 'num spread', text: has(s && s.p5) && has(s.p95) ? `${fmtInterval([s.p5, s.p95], s.value)}${u}` : '—' }));
  });
  return el('div', { class: 'scroll' }, el('table', { class: 'values summary', 'data-block': block },
    el('caption', { text: `${humanize(block)}: metrics of the simulated power trace (power of all its GPUs)` }),
    el('thead', {}, el('tr', {}, ['metric', `mean over ${replicas ? `${replicas} ` : ''}replicas`,
      'Monte-Carlo spread: P5–P95 over replicas'].map((h) => el('th', { scope: 'col', text: h })))),
    el('tbody', {}, rows)));
}

/* The 95 % predictive interval (the law's held-out error) of the metrics
 * it has, with what it covers: not the spread over replicas above. None:
 * the reasons `why` the answer's warnings give (null: said above already,
 * for an earlier block of the same answer). */
function predictiveBlock(block, iv, why) {
  const title = `${humanize(block)}: 95 % predictive interval`;
  if (!iv) {
    const reason = why === null ? 'none, for the reason given above'
      : why.length ? why.map((w) => w.replace(/^interval_95: /, '')).join('; ') : 'none (the answer gives no reason)';
    return el('p', { class: 'muted predictive', 'data-block': block, text: `${title}: ${reason}` });
  }
  const metrics = Object.keys(iv).filter((k) => Array.isArray(iv[k]) && iv[k].length === 2);
  const st = iv.stratum;
  return el('div', { class: 'predictive', 'data-block': block },
    el('table', { class: 'values' }, el('caption', { text: title }),
      el('tbody', {}, metrics.map((m) => {
        const [label, unit] = summaryLabel(m);
        return el('tr', { 'data-key': `${block}.interval_95.${m}` }, el('th', { scope: 'row', text: label }),
          el('td', { class: 'num', text: `${fmtInterval(iv[m])}${unit ? ` ${unit}` : ''}` }));
      }))),
    el('p', { class: 'covers', text: `Covers: ${iv.covers || 'not said'}${st ? ` (held-out stratum: platform ${st.platform}, source ${st.source}, ${st.runs} runs)` : ''}.` }));
}

/* The other numbers of an answer (a budget's plan, a fleet's peak, a
 * fine-tuning answer) with their intervals; null when there are none. */
function answerTable(a, caption) {
  const list = quantities(a);
  const any = list.some((q) => q[3]);
  const rows = list.map(([key, leaf, v, iv, cov]) => {
    const [label, unit] = rowLabel(key, leaf, key.includes('.') ? key.split('.').slice(-2, -1)[0] : '');
    return el('tr', { 'data-key': key }, el('th', { scope: 'row', text: label }),
      el('td', { class: 'num', text: shownValue(v, unit, iv) }),
      any ? el('td', { class: 'num', text: fmtInterval(iv, v) }) : null, any ? el('td', { class: 'covers', text: cov }) : null);
  });
  const warnings = caption ? [] : a.warnings || [];
  if (!rows.length && !warnings.length) return null;
  return el('div', {}, rows.length ? el('div', { class: 'scroll' }, el('table', { class: 'values' },
    caption ? el('caption', { text: caption }) : null,
    any ? el('thead', {}, el('tr', {}, ['quantity', 'value', '95 % interval', 'what it covers'].map((h) => el('th', { scope: 'col', text: h })))) : null,
    el('tbody', {}, rows))) : null,
  el('ul', { class: 'warnings' }, warnings.map((w) => el('li', { text: w }))));
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
  return figure(`plot-${p.path.replace(/\W+/g, '-')}`, { title: `${p.title}: ${humanize(name)}`,
    x: `${humanize(xk)}${unitOf(xk) ? ` (${unitOf(xk)})` : ''}`, y: unit ? `${humanize(ys[0])} (${unit})` : humanize(ys[0] || ''),
    xlog: false, ylog: false, series });
}

/* A block's per-bin band (`bins`: t_s, mean_w, p5_w, p95_w, mean_running
 * of equal length): the mean power over replicas against time, the P5–P95
 * spread over replicas as its band. null without bins (include_bins false). */
function binsFigure(p, block, bins) {
  if (!bins || !Array.isArray(bins.t_s) || !Array.isArray(bins.mean_w) || !bins.t_s.length) return null;
  const band = Array.isArray(bins.p5_w) && Array.isArray(bins.p95_w);
  const points = bins.t_s.map((x, j) => ({ x, y: bins.mean_w[j], lo: band ? bins.p5_w[j] : NaN, hi: band ? bins.p95_w[j] : NaN }));
  const per = bins.bin_s ? `${fmt(bins.bin_s)} s` : 'bin';
  return figure(`plot-${p.path.replace(/\W+/g, '-')}-${block}`, {
    title: `${humanize(block)}: mean power per ${per} bin over replicas, band P5–P95 over replicas (Monte-Carlo spread)`,
    x: 'time (s)', y: 'power (W)', xlog: false, ylog: false,
    series: [{ name: 'mean power (W)', color: COLORS[0], dash: '', points }] });
}

/* ------------------------------------------------- power flexibility */

/* The sweep's answer (docs/capacity.md, "Power flexibility"): what the
 * knee and the optimum are, the plot of node power against throughput,
 * the steps as a table, the unconstrained point with its intervals, the
 * warnings and, folded, the configuration swept. */
function flexView(p, a) {
  const steps = Array.isArray(a.steps) ? a.steps : [];
  const cap = a.sweep === 'power_cap';
  const knee = a.knee_clock_mhz, best = a.energy_optimal_clock_mhz;
  const facts = el('p', { class: 'flex-facts', text: [
    `${steps.length} ${cap ? 'power caps' : 'clock locks'}, from the highest clock down.`,
    typeof knee === 'number' ? `Knee: ${fmt(knee)} MHz${cap && typeof a.knee_power_cap_w === 'number' ? ` (cap ${fmt(a.knee_power_cap_w)} W per GPU)` : ''}, the last step before throughput falls faster than power.`
      : steps.length && steps.every((s) => s.over_capacity) ? 'No knee and no optimum: no step serves the rate (see the warnings).' : 'No knee: throughput never falls faster than power.',
    typeof best === 'number' ? `Least energy per output token at ${fmt(best)} MHz.` : ''].join(' ') });
  return [facts, steps.length ? flexFigure(p, a) : null, flexTable(a), unconstrainedTable(a),
    el('ul', { class: 'warnings' }, (a.warnings || []).map((w) => el('li', { text: w }))),
    a.config ? el('details', { class: 'echo' }, el('summary', { text: 'Configuration swept, as the server read it' }),
      answerTable(a.config, 'Configuration')) : null];
}

/* The same step as the answer's knee or optimum: a clock of the sweep,
 * compared to within rounding of its printing. */
const sameClock = (x, y) => typeof y === 'number' && Math.abs(x - y) <= 1e-6 * Math.max(1, Math.abs(y));

const FLEX_COLUMNS = [
  ['sm_clock_mhz', 'SM clock', 'MHz'], ['power_cap_w', 'Power cap per GPU', 'W'], ['node_power_w', 'Node power', 'W'],
  ['throughput_tok_s', 'Output throughput', 'tokens/s'], ['energy_per_output_token_j', 'Energy per output token', 'J'],
  ['latency_s', 'Latency per request', 's'], ['power_shed_w', 'Power shed', 'W'], ['throughput_lost_pct', 'Throughput lost', '%'],
  ['pfi', 'Power shed per throughput lost (PFI)', ''],
];

function flexTable(a) {
  const cell = (s, [k, , unit]) => {
    const v = s[k], iv = s.interval_95 && s.interval_95[k];
    return el('td', { class: 'num', 'data-key': k, text: typeof v === 'number'
      ? `${fmt(v, sciGroup(v, iv))}${unit ? ` ${unit}` : ''}${iv ? ` ${fmtInterval(iv, v)}` : ''}` : '—' });
  };
  return el('div', { class: 'scroll' }, el('table', { class: 'values flex-steps' },
    el('caption', { text: 'Steps of the sweep (95 % intervals in brackets where the set has them)' }),
    el('thead', {}, el('tr', {}, FLEX_COLUMNS.map(([, h, u]) => el('th', { scope: 'col', text: u ? `${h} (${u})` : h })),
      el('th', { scope: 'col', text: 'note' }))),
    el('tbody', {}, (a.steps || []).map((s) => el('tr', { 'data-clock': s.sm_clock_mhz },
      FLEX_COLUMNS.map((c) => cell(s, c)),
      el('td', { text: [sameClock(s.sm_clock_mhz, a.knee_clock_mhz) ? 'knee' : '',
        sameClock(s.sm_clock_mhz, a.energy_optimal_clock_mhz) ? 'least energy per token' : '',
        s.over_capacity ? 'over capacity: the rate is not served' : ''].filter(Boolean).join(', ') }))))));
}

/* No lock and no cap, with the intervals and what each covers. */
function unconstrainedTable(a) {
  const u = a.unconstrained;
  if (!u) return null;
  const iv = a.interval_95 || {};
  const by = iv.covers_by_quantity || {};
  return el('table', { class: 'values flex-free' },
    el('caption', { text: 'Unconstrained (no lock, no cap)' }),
    el('thead', {}, el('tr', {}, ['quantity', 'value', '95 % interval', 'what it covers'].map((h) => el('th', { scope: 'col', text: h })))),
    el('tbody', {}, Object.entries(u).filter(([, v]) => typeof v === 'number').map(([k, v]) => el('tr', { 'data-key': `unconstrained.${k}` },
      el('th', { scope: 'row', text: labelOf(k) }), el('td', { class: 'num', text: `${fmt(v, sciGroup(v, iv[k]))} ${unitLabel(k)}` }),
      el('td', { class: 'num', text: fmtInterval(iv[k], v) || 'none' }), el('td', { class: 'covers', text: by[k] || '' })))));
}

/* The plot `wattcast predict flexibility --svg` draws (cli/flexibility_io.c):
 * node power against throughput, one point per step joined in sweep
 * order, the knee a larger red point, the least-energy step ringed. */
function flexFigure(p, a) {
  const box = el('div', { class: 'chart-box' });
  const fig = el('figure', { id: `plot-${p.path.replace(/\W+/g, '-')}`, class: 'plot flex-plot' },
    el('figcaption', { text: `Power flexibility: ${a.config ? `${a.config.platform}, TP ${a.config.tp}, ` : ''}${a.sweep === 'power_cap' ? 'power-cap' : 'clock'} sweep` }),
    box, el('p', { class: 'muted', text: 'One point per step, highest clock at the top right; below the knee throughput falls faster than power.' }));
  fig.redraw = () => drawFlex(box, a);
  return fig;
}

function drawFlex(box, a) {
  const steps = a.steps;
  const W = Math.max(300, Math.min(box.clientWidth || 640, 900));
  const H = Math.round(Math.max(240, Math.min(W * 0.5, 360)));
  const m = { l: 62, r: 16, t: 14, b: 44 };
  const range = (vs) => {
    let lo = Math.min(...vs), hi = Math.max(...vs);
    if (!(hi > lo)) hi = lo + 1;
    const pad = 0.05 * (hi - lo);
    return [lo - pad, hi + pad];
  };
  const [x0, x1] = range(steps.map((s) => s.throughput_tok_s));
  const [y0, y1] = range(steps.map((s) => s.node_power_w));
  const X = (v) => m.l + ((v - x0) / (x1 - x0)) * (W - m.l - m.r);
  const Y = (v) => H - m.b - ((v - y0) / (y1 - y0)) * (H - m.t - m.b);
  const title = 'Node power (W) against output throughput (tokens/s), one point per step';
  const g = svg('svg', { viewBox: `0 0 ${W} ${H}`, width: W, height: H, role: 'img', 'aria-label': title, class: 'chart flex' },
    svg('title', {}, document.createTextNode(title)));
  for (const v of niceTicks(y0, y1, 5)) {
    g.append(svg('line', { x1: m.l, x2: W - m.r, y1: Y(v), y2: Y(v), class: 'grid' }),
      svg('text', { x: m.l - 6, y: Y(v) + 4, 'text-anchor': 'end', class: 'tick' }, document.createTextNode(fmt(v))));
  }
  for (const v of niceTicks(x0, x1, 5)) {
    g.append(svg('line', { x1: X(v), x2: X(v), y1: m.t, y2: H - m.b, class: 'grid' }),
      svg('text', { x: X(v), y: H - m.b + 16, 'text-anchor': 'middle', class: 'tick' }, document.createTextNode(fmt(v))));
  }
  g.append(svg('rect', { x: m.l, y: m.t, width: W - m.l - m.r, height: H - m.t - m.b, class: 'frame' }),
    svg('text', { x: (m.l + W - m.r) / 2, y: H - 6, 'text-anchor': 'middle', class: 'label' }, document.createTextNode('throughput (output tokens/s)')),
    svg('text', { x: 14, y: (m.t + H - m.b) / 2, 'text-anchor': 'middle', class: 'label',
      transform: `rotate(-90 14 ${(m.t + H - m.b) / 2})` }, document.createTextNode('node power (W)')),
    svg('polyline', { points: steps.map((s) => `${X(s.throughput_tok_s).toFixed(1)},${Y(s.node_power_w).toFixed(1)}`).join(' '),
      class: 'line', fill: 'none', stroke: COLORS[0], 'stroke-width': 1.5 }));
  /* A label near the right edge is written leftwards, so it stays inside. */
  const label = (x, y, cls, text) => {
    const left = x > W - m.r - 170;
    g.append(svg('text', { x: left ? x - 10 : x + 10, y, 'text-anchor': left ? 'end' : 'start', class: cls }, document.createTextNode(text)));
  };
  for (const s of steps) {
    const x = X(s.throughput_tok_s), y = Y(s.node_power_w);
    const knee = sameClock(s.sm_clock_mhz, a.knee_clock_mhz);
    const at = `${fmt(s.sm_clock_mhz)} MHz, ${fmt(s.node_power_w)} W, ${fmt(s.throughput_tok_s)} tokens/s`;
    if (sameClock(s.sm_clock_mhz, a.energy_optimal_clock_mhz)) {
      g.append(svg('circle', { cx: x, cy: y, r: 10, class: 'optimum', 'data-clock': s.sm_clock_mhz },
        svg('title', {}, document.createTextNode(`least energy per output token: ${at}`))));
      label(x, y + 22, 'optimum-label', `least energy/token ${fmt(s.sm_clock_mhz)} MHz`);
    }
    g.append(svg('circle', { cx: x, cy: y, r: knee ? 6 : 3.5, class: knee ? 'step knee' : 'step', 'data-clock': s.sm_clock_mhz,
      fill: knee ? '#d62728' : COLORS[0] }, svg('title', {}, document.createTextNode(at))));
    if (knee) label(x, y - 8, 'knee-label', `knee ${fmt(s.sm_clock_mhz)} MHz`);
  }
  box.replaceChildren(g);
}
