/*
 * Injected before the planner page's own script by test_browser_page.c:
 * makes the page see an API that has the capacity fields (input/output
 * tokens, arrival rate; latency and energy per output token with
 * intervals) and POST /v1/forecast/envelope, which this server does not
 * have yet. Requests go to the real server with the extra fields taken
 * out; answers come back with made-up values for the new fields. Only
 * the page's feature detection and generic rendering are under test
 * here, not these numbers.
 */
(() => {
  const realFetch = window.fetch.bind(window);
  const NEW_FIELDS = {
    input_tokens: { type: 'integer', minimum: 1, description: 'Prompt tokens per request.' },
    output_tokens: { type: 'integer', minimum: 1, description: 'Generated tokens per request.' },
    rate: { type: 'number', exclusiveMinimum: 0, description: 'Requests arriving per second (open loop).' },
  };
  const json = (obj, status) => new Response(JSON.stringify(obj),
    { status: status || 200, headers: { 'Content-Type': 'application/json' } });

  const toServer = (item) => {
    const c = Object.assign({}, item);
    if (c.rate !== undefined) { c.concurrency = c.rate * 10; delete c.rate; }
    for (const k of Object.keys(NEW_FIELDS)) delete c[k];
    return c;
  };
  const decorate = (a) => {
    if (!a || typeof a.node_power_w !== 'number') return a;
    const e = a.node_power_w / (40 * Math.max(a.mean_running, 0.25));
    a.latency_s = 12.5;
    a.energy_per_output_token_j = e;
    a.interval_95 = Object.assign({}, a.interval_95 || {},
      { latency_s: [11, 14], energy_per_output_token_j: [0.9 * e, 1.1 * e] });
    return a;
  };

  const envelopeSchema = {
    type: 'object', additionalProperties: false, required: ['platform', 'tp', 'horizon_s'],
    properties: Object.assign({ horizon_s: { type: 'number', exclusiveMinimum: 0, description: 'Forecast horizon.' },
      replicas: { type: 'integer', minimum: 1, description: 'Simulated replicas.' } }, {
      platform: { type: 'string' }, tp: { type: 'integer' }, model: { type: 'string' }, concurrency: { type: 'number' } }),
  };
  const envelopeAnswer = (body) => {
    const bins = [];
    for (let t = 0; t <= body.horizon_s; t += body.horizon_s / 10)
      bins.push({ t_s: t, mean_w: 500 + 20 * Math.sin(t), p5_w: 460, p95_w: 560 });
    return { p95_w: 560, mean_w: 500, bins, warnings: [] };
  };

  window.fetch = async (url, init) => {
    const path = new URL(url, location.href).pathname;
    if (path === '/openapi.json') {
      const doc = await (await realFetch(url, init)).json();
      Object.assign(doc.components.schemas.InferenceRequest.properties, NEW_FIELDS);
      doc.paths['/v1/forecast/envelope'] = { post: { requestBody: { content: { 'application/json': {
        schema: envelopeSchema, examples: { one: { value: { platform: 'H200', tp: 1, horizon_s: 60, replicas: 20 } } } } } } } };
      return json(doc);
    }
    if (path === '/v1/predict/inference') {
      const r = await realFetch(url, Object.assign({}, init, { body: JSON.stringify(toServer(JSON.parse(init.body))) }));
      const a = await r.json();
      return json(r.ok ? decorate(a) : a, r.status);
    }
    if (path === '/v1/predict/batch') {
      const items = JSON.parse(init.body).map(toServer);
      const r = await realFetch(url, Object.assign({}, init, { body: JSON.stringify(items) }));
      const a = await r.json();
      if (r.ok) a.results = a.results.map(decorate);
      return json(a, r.status);
    }
    if (path === '/v1/forecast/envelope') return json(envelopeAnswer(JSON.parse(init.body)));
    return realFetch(url, init);
  };
})();
