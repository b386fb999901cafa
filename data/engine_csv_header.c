/*
 * engine.csv's header: the stacks' metric names a column may carry (the
 * one table Prometheus ingest reads too, trace/fleet.c) and the label
 * blocks that tell one metric's columns apart (docs/formats/telemetry.md,
 * "engine.csv").
 */
#include "engine_csv_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The stacks' names of each column's metric, as their expositions export
 * them (docs/formats/telemetry.md, "engine.csv"; docs/fleet.md,
 * "Metrics"): vLLM's first, in column order, then its newer cache gauge,
 * SGLang's names and TGI's gauges (TGI's token histograms, counted at a
 * request's end, are no counter of vLLM's). `at_end`: the counter counts
 * a request's work when the request finishes -- SGLang's token counters
 * (TokenizerMetricsCollector.observe_one_finished_request adds a request's
 * prompt and generated tokens at once), so their increase over a window
 * is the work of the requests completed in it, not the work done.
 * SGLang's realtime_tokens_total counts tokens as they are generated
 * (each log interval), its decode series (`label`) the output tokens:
 * listed before generation_tokens_total, it is preferred where both are
 * exported. */
static const struct {
	const char *name;
	wc_engine_column col;
	int at_end;
	const char *label;
} exported[] = {
	{ "vllm:num_requests_running", WC_ENG_RUNNING, 0, NULL },
	{ "vllm:num_requests_waiting", WC_ENG_WAITING, 0, NULL },
	{ "vllm:gpu_cache_usage_perc", WC_ENG_CACHE_USAGE, 0, NULL },
	{ "vllm:prompt_tokens_total", WC_ENG_PROMPT_TOKENS, 0, NULL },
	{ "vllm:generation_tokens_total", WC_ENG_GENERATION_TOKENS, 0, NULL },
	{ "vllm:iteration_tokens_total_sum", WC_ENG_ITERATION_TOKENS, 0, NULL },
	{ "vllm:iteration_tokens_total_count", WC_ENG_ITERATIONS, 0, NULL },
	{ "vllm:request_prefill_time_seconds_sum", WC_ENG_PREFILL_S, 0, NULL },
	{ "vllm:request_decode_time_seconds_sum", WC_ENG_DECODE_S, 0, NULL },
	{ "vllm:num_preemptions_total", WC_ENG_PREEMPTIONS, 0, NULL },
	{ "vllm:kv_cache_usage_perc", WC_ENG_CACHE_USAGE, 0, NULL },
	{ "sglang:num_running_reqs", WC_ENG_RUNNING, 0, NULL },
	{ "sglang:num_queue_reqs", WC_ENG_WAITING, 0, NULL },
	{ "sglang:token_usage", WC_ENG_CACHE_USAGE, 0, NULL },
	{ "sglang:prompt_tokens_total", WC_ENG_PROMPT_TOKENS, 1, NULL },
	{ "sglang:realtime_tokens_total", WC_ENG_GENERATION_TOKENS, 0, "mode=\"decode\"" },
	{ "sglang:generation_tokens_total", WC_ENG_GENERATION_TOKENS, 1, NULL },
	{ "tgi_batch_current_size", WC_ENG_RUNNING, 0, NULL },
	{ "tgi_queue_size", WC_ENG_WAITING, 0, NULL },
};
#define N_EXPORTED (sizeof exported / sizeof exported[0])

/* The stacks' name prefixes, bit k of a stack mask for prefixes[k]:
 * engine.csv takes vLLM's or SGLang's, or none, on any name (`strip`);
 * TGI's is part of its names. */
static const struct {
	const char *prefix, *stack;
	int strip;
} prefixes[] = { { "vllm:", "vllm", 1 }, { "sglang:", "sglang", 1 }, { "tgi_", "tgi", 0 } };
#define N_PREFIXES (sizeof prefixes / sizeof prefixes[0])

/* The entry of prefixes whose prefix `name` has, or N_PREFIXES. */
static size_t
prefix_of(const char *name)
{
	size_t k = 0;
	while (k < N_PREFIXES && strncmp(name, prefixes[k].prefix, strlen(prefixes[k].prefix)) != 0)
		k++;
	return k;
}

/* A name without its stack's prefix: engine.csv takes either prefix, or
 * none, on any name. */
static const char *
bare(const char *name)
{
	size_t k = prefix_of(name);
	return k < N_PREFIXES && prefixes[k].strip ? name + strlen(prefixes[k].prefix) : name;
}

/* The stacks a header name is of, bit k for prefixes[k]: by its prefix,
 * else by the table's entries of its bare name; a name two stacks export
 * alike (`generation_tokens_total`, vLLM's and SGLang's) is of neither.
 * What a warning names as the log's stack (e->stack): an SGLang log
 * lacking token counters was said to lack them "as TGI's has none"
 * (docs/formats/telemetry.md, "What ingest derives"). */
static unsigned
name_stacks(const char *name)
{
	size_t k = prefix_of(name);
	if (k < N_PREFIXES)
		return 1u << k;
	size_t len = strcspn(name, "{");
	unsigned m = 0;
	for (size_t i = 0; i < N_EXPORTED; i++) {
		const char *b = bare(exported[i].name);
		if (strlen(b) == len && strncmp(name, b, len) == 0)
			m |= name_stacks(exported[i].name); /* prefixed: no deeper */
	}
	return m & (m - 1) ? 0u : m;
}

/* The one stack of mask `m`, or NULL. */
static const char *
one_stack(unsigned m)
{
	for (size_t k = 0; k < N_PREFIXES; k++)
		if (m == 1u << k)
			return prefixes[k].stack;
	return NULL;
}

/* The entry of exported whose name `name` is (labels ignored): of its
 * own stack by its prefix; without one, of the stack `stacks` says the
 * header's names are of (an SGLang log may drop `sglang:`), else the
 * first (vLLM's); N_EXPORTED none. */
static size_t
exported_entry(const char *name, unsigned stacks)
{
	size_t p = prefix_of(name), found = N_EXPORTED;
	const char *b = bare(name);
	size_t len = strcspn(b, "{");
	for (size_t i = 0; i < N_EXPORTED; i++) {
		const char *e = bare(exported[i].name);
		if (strlen(e) != len || strncmp(b, e, len) != 0)
			continue;
		size_t q = prefix_of(exported[i].name);
		if (p < N_PREFIXES ? q == p : stacks == 1u << q)
			return i;
		if (found == N_EXPORTED)
			found = i;
	}
	return found;
}

int
wc_engine_exported_at_end(const char *name)
{
	size_t i = name ? exported_entry(name, 0) : N_EXPORTED;
	return i < N_EXPORTED && exported[i].at_end;
}

const char *
wc_engine_exported_label(const char *name)
{
	size_t i = name ? exported_entry(name, 0) : N_EXPORTED;
	return i < N_EXPORTED ? exported[i].label : NULL;
}

const char *
wc_engine_column_exported(wc_engine_column c, int k)
{
	for (size_t i = 0; i < N_EXPORTED; i++)
		if (exported[i].col == c && k-- == 0)
			return exported[i].name;
	return NULL;
}

const char *
wc_engine_column_name(wc_engine_column c)
{
	const char *n = c >= 0 && c < WC_ENG_COLUMNS ? wc_engine_column_exported(c, 0) : NULL;
	return n ? bare(n) : "?";
}

/* Map a header name (optionally "vllm:"- or "sglang:"-prefixed) to its
 * entry of exported; N_EXPORTED + 1 = the timestamp, N_EXPORTED = not
 * ours. A scraper that copies the exposition's series name keeps its
 * label block (`vllm:num_requests_running{engine="0",model_name="..."}`):
 * the metric is matched by its name, the labels ignored but the one an
 * entry requires (docs/formats/telemetry.md, "engine.csv"). */
static size_t
header_entry(const char *name, unsigned stacks)
{
	const char *full = name;
	name = bare(name);
	size_t len = strcspn(name, "{");
	if (name[len] == '{' && name[strlen(name) - 1] != '}')
		return N_EXPORTED; /* an unclosed label block is no metric name */
	if (len == 9 && strncmp(name, "timestamp", len) == 0)
		return N_EXPORTED + 1;
	size_t i = exported_entry(full, stacks);
	if (i < N_EXPORTED && exported[i].label && !(name[len] == '{' && wc_engine_labels_have(name + len + 1,
	                                                                                       exported[i].label)))
		return N_EXPORTED; /* another mode's series of realtime_tokens_total */
	return i;
}

/* Allocate column c when absent, its cells of the rows read so far
 * unknown (a header later in the file may name it first). */
static int
add_column(eng_reader *r, int c)
{
	wc_engine_log *e = r->e;
	if (e->col[c])
		return 1;
	if (!(e->col[c] = wc_alloc_array(r->cap ? r->cap : 1, sizeof(double))))
		return 0;
	for (size_t i = 0; i < e->n; i++)
		e->col[c][i] = NAN;
	return 1;
}

/* One header field's name, label block and all, into buf (size bytes): an
 * unquoted label block holds commas (`name{a="0",b="x"}`), so the fields
 * from one with an open '{' to the one closing it are joined back (*j
 * advanced). */
static int
header_name(eng_reader *r, wc__csv_field *f, int nf, int *j, size_t line_no, char *buf, size_t size,
            wc_error *err)
{
	int col = *j;
	size_t fl = strlen(f[col].text), len;
	char *name = wc__trim(f[col].text, &fl);
	name[fl] = '\0';
	snprintf(buf, size, "%s", name);
	if (strchr(name, '{') && !strchr(name, '}')) {
		do {
			if (++*j >= nf)
				return wc_error_set_path(err, WC_EPARSE, r->path, ":%zu:%d: header: the label block of '%.60s' "
				                    "is not closed", line_no, f[col].column, name);
			len = strlen(buf);
			snprintf(buf + len, size - len, ",%s", f[*j].text);
		} while (!strchr(f[*j].text, '}'));
	}
	return WC_OK;
}

/* Field k of column c, its labels `lab`, among the fields of c read so
 * far: by the one rule of which per-rank series are read and added
 * (wc_engine_labels_place; docs/formats/telemetry.md, "engine.csv") --
 * the lowest rank of each engine, the engines added up; another label
 * refuses the header (two servers?). */
static int
place_field(eng_reader *r, int c, int k, const char *const *labs, size_t line_no, int column, wc_error *err)
{
	const char *read[ENG_MAX_FIELDS];
	int idx[ENG_MAX_FIELDS] = { 0 };
	size_t n = 0, which;
	char key[64];
	for (int i = 0; i < k; i++)
		if (r->map[i] == c) {
			read[n] = labs[i];
			idx[n++] = i;
		}
	switch (wc_engine_labels_place(read, n, labs[k], &which, key, sizeof key)) {
	case WC_ENGINE_PLACE_REFUSE:
		return wc_error_set_path(err, WC_EPARSE, r->path, ":%zu:%d: header: %s twice, its labels differing in "
		                         "'%s' (two servers?): keep one server's columns; nothing read", line_no, column,
		                         wc_engine_column_name((wc_engine_column)c), key);
	case WC_ENGINE_PLACE_REPLACE:
		/* the replaced rank's other processes with it */
		for (int i = 0; i < k; i++)
			if (r->join[i] == idx[which])
				r->join[i] = -1;
		r->map[idx[which]] = -2;
		break;
	case WC_ENGINE_PLACE_JOIN:
		r->map[k] = -2;
		r->join[k] = idx[which];
		break;
	case WC_ENGINE_PLACE_SKIP:
		r->map[k] = -2;
		break;
	default:
		r->n_series[c]++;
	}
	return WC_OK;
}

/* Each field's counter among each engine's (-1 for a gauge or a field not
 * read): judged for glitches and restarts on its own, and added up with
 * its column's other engines after (data/engine_log_rows.c). */
static int
field_counters(eng_reader *r, int k, const char *const *labs, size_t line_no, wc_error *err)
{
	for (int i = 0; i < k; i++) {
		int c = r->map[i], counter = c >= 0 && wc_engine_column_is_counter((wc_engine_column)c);
		r->counter[i] = counter ? wc__engine_counters_add(&r->counters, (wc_engine_column)c, labs[i], r->e->n) : -1;
		if (r->counter[i] == -2)
			return wc_error_set_path(err, WC_ERANGE, r->path, ":%zu: header: more than %d counter series in the "
			                         "file; nothing read", line_no, WC_ENGINE_MAX_COUNTERS);
		if (counter && r->counter[i] < 0)
			return wc_error_set_path(err, WC_ENOMEM, r->path, ": out of memory");
	}
	return WC_OK;
}

/* The series the header reads (r->read): each field read, its column and
 * engine, once. */
static int
header_series(eng_reader *r, int k, const char *const *labs, wc_error *err)
{
	eng_series *s = wc_alloc_array(k > 0 ? (size_t)k : 1, sizeof *s);
	size_t n = 0;
	if (!s)
		return wc_error_set_path(err, WC_ENOMEM, r->path, ": out of memory");
	for (int i = 0; i < k; i++) {
		if (r->map[i] < 0)
			continue;
		s[n].col = r->map[i];
		wc_engine_labels_summed(labs[i], s[n].engine, sizeof s[n].engine);
		size_t j = 0;
		while (j < n && !(s[j].col == s[n].col && strcmp(s[j].engine, s[n].engine) == 0))
			j++;
		n += j == n;
	}
	free(r->read);
	r->read = s;
	r->n_read = n;
	return WC_OK;
}

/* An engine the header names -- the `engine` / `dp_rank` labels of any
 * column it reads, gauge or counter -- of which column c, every series
 * of it labelled, has no series: that engine served, so c's sum over the
 * engines is unknown, not the others' part (docs/formats/telemetry.md,
 * "Missing cells"). Each column's first such engine is kept in
 * e->engine_without, and the column is read as absent once the rows are
 * in (data/engine_log_rows.c). A column without the labels is a server's
 * whole count. Summed without it, a running gauge lacking one engine's
 * column read that engine's requests as none, silently. */
static void
header_engines_without(eng_reader *r)
{
	for (int c = 0; c < WC_ENG_COLUMNS; c++) {
		int read = 0, whole = 0;
		for (size_t j = 0; j < r->n_read; j++)
			if (r->read[j].col == c) {
				read = 1;
				whole |= !r->read[j].engine[0];
			}
		for (size_t k = 0; read && !whole && !r->e->engine_without[c][0] && k < r->n_read; k++) {
			const char *engine = r->read[k].engine;
			size_t j = 0;
			while (j < r->n_read && !(r->read[j].col == c && strcmp(r->read[j].engine, engine) == 0))
				j++;
			if (engine[0] && j == r->n_read)
				snprintf(r->e->engine_without[c], sizeof r->e->engine_without[c], "%s", engine);
		}
	}
}

size_t
wc__engine_series_left_out(const eng_reader *r, const eng_series *old, size_t n_old, char *name, size_t size)
{
	size_t left = 0;
	for (size_t i = 0; i < n_old; i++) {
		int column = 0, engine = 0;
		for (size_t j = 0; j < r->n_read; j++)
			if (r->read[j].col == old[i].col) {
				column = 1;
				engine = engine || strcmp(r->read[j].engine, old[i].engine) == 0;
			}
		if (column && (engine || !old[i].engine[0]))
			continue;
		if (left++ == 0)
			wc__engine_series_name((wc_engine_column)old[i].col, old[i].engine, name, size);
	}
	return left;
}

/* Whether field k of column c is read by the counting it does: a counter
 * that counts work as it is done is read rather than one that counts a
 * request's when it finishes (SGLang's realtime_tokens_total decode
 * series before its generation_tokens_total: `exported`), whichever
 * column comes first -- the latter's fields read so far are left out. */
static int
prefer(eng_reader *r, int c, int k, const unsigned char *at_end)
{
	int live = 0, ended = 0;
	for (int i = 0; i < k; i++)
		if (r->map[i] == c) {
			live += !at_end[i];
			ended += at_end[i];
		}
	if (at_end[k])
		return live == 0;
	if (ended) {
		for (int i = 0; i < k; i++)
			if (r->map[i] == c && at_end[i])
				r->map[i] = -2;
		r->n_series[c] = 0;
		r->e->at_end[c] = NULL;
	}
	return 1;
}

/* Whether the running count names engine `name` (r->engine_names). */
static int
engine_named(const eng_reader *r, const char *name)
{
	for (int i = 0; i < r->n_engines; i++)
		if (strcmp(r->engine_names[i], name) == 0)
			return 1;
	return 0;
}

/* Count the data-parallel engines of the running count (each distinct
 * `engine` / `dp_rank` label seen with it) and, when the read keeps one
 * engine (opt->engine_only), whether field k is of it: 0 leaves the field
 * unread (docs/formats/telemetry.md, "Data-parallel engines"). */
static int
replica_series(eng_reader *r, int c, int k, const char *const *labs)
{
	char mine[sizeof r->engine_names[0]];
	wc_engine_labels_summed(labs[k], mine, sizeof mine);
	if (c == WC_ENG_RUNNING && mine[0]) {
		if (!engine_named(r, mine) && r->n_engines < ENG_MAX_ENGINES)
			snprintf(r->engine_names[r->n_engines++], sizeof r->engine_names[0], "%s", mine);
		if (r->n_engines > r->e->engines)
			r->e->engines = r->n_engines;
	}
	if (r->opt->engine_only <= 0)
		return 1;
	char want[2][48];
	snprintf(want[0], sizeof want[0], "engine=\"%d\"", r->opt->engine_only - 1);
	snprintf(want[1], sizeof want[1], "dp_rank=\"%d\"", r->opt->engine_only - 1);
	return wc_engine_labels_have(labs[k], want[0]) || wc_engine_labels_have(labs[k], want[1]);
}

/* The first engine another column labels that the running count does
 * not, over the whole header (a replica's read keeps one engine's
 * columns): the running count then names fewer engines than served, and
 * that is the reason to give (docs/formats/telemetry.md, "Data-parallel
 * engines"), not their number alone. */
static void
running_lacks(eng_reader *r, int k, const signed char *kind, const char *const *labs)
{
	r->e->running_lacks[0] = '\0';
	for (int i = 0; i < k && r->n_engines > 0 && !r->e->running_lacks[0]; i++) {
		char mine[sizeof r->engine_names[0]];
		if (kind[i] < 0 || kind[i] == WC_ENG_RUNNING)
			continue;
		wc_engine_labels_summed(labs[i], mine, sizeof mine);
		if (mine[0] && !engine_named(r, mine))
			snprintf(r->e->running_lacks, sizeof r->e->running_lacks, "%s", mine);
	}
}

int
wc__engine_map_header(eng_reader *r, wc__csv_field *f, int nf, size_t line_no, wc_error *err)
{
	const char *labs[ENG_MAX_FIELDS];
	unsigned char at_end[ENG_MAX_FIELDS];
	signed char kind[ENG_MAX_FIELDS]; /* each field's column before a replica's read keeps one */
	size_t size = 2, used = 0;
	int k = 0, rc = WC_OK;
	for (int j = 0; j < nf; j++)
		size += strlen(f[j].text) + 2;
	char *store = malloc(size); /* every field's name, label blocks and all */
	if (!store)
		return wc_error_set_path(err, WC_ENOMEM, r->path, ": out of memory");
	r->time_col = -1;
	r->n_engines = 0;
	for (int c = 0; c < WC_ENG_COLUMNS; c++)
		r->n_series[c] = 0;
	unsigned stacks = 0; /* the header's stacks, for names without a prefix */
	for (int j = 0; j < nf; j++)
		stacks |= name_stacks(f[j].text);
	for (int j = 0; j < nf && rc == WC_OK; j++, k++) {
		int col = j;
		char *buf = store + used;
		if ((rc = header_name(r, f, nf, &j, line_no, buf, size - used, err)) != WC_OK)
			break;
		used += strlen(buf) + 1;
		size_t x = header_entry(buf, stacks);
		int c = r->map[k] = x < N_EXPORTED ? (int)exported[x].col : x == N_EXPORTED ? -2 : -1;
		r->join[k] = -1;
		r->stacks |= name_stacks(buf);
		at_end[k] = x < N_EXPORTED && exported[x].at_end;
		char *lab = strchr(buf, '{');
		if (lab && strrchr(lab, '}'))
			*strrchr(lab++, '}') = '\0';
		else
			lab = buf + strlen(buf);
		labs[k] = lab;
		kind[k] = (signed char)c;
		if (c >= 0 && !replica_series(r, c, k, labs)) {
			r->map[k] = -2;
			continue;
		}
		if (c >= 0 && !prefer(r, c, k, at_end)) {
			r->map[k] = -2;
			continue;
		}
		if (c >= 0 && at_end[k])
			r->e->at_end[c] = exported[x].name;
		if (c == -1 && r->time_col >= 0)
			r->map[k] = -2; /* a repeated timestamp: the first one wins too */
		else if (c == -1)
			r->time_col = k;
		if (c >= 0 && (rc = place_field(r, c, k, labs, line_no, f[col].column, err)) == WC_OK &&
		    r->map[k] == c && !add_column(r, c))
			rc = wc_error_set_path(err, WC_ENOMEM, r->path, ": out of memory");
	}
	if (rc == WC_OK)
		rc = field_counters(r, k, labs, line_no, err);
	if (rc == WC_OK && (rc = header_series(r, k, labs, err)) == WC_OK)
		header_engines_without(r);
	if (rc == WC_OK)
		running_lacks(r, k, kind, labs);
	free(store);
	if (rc != WC_OK)
		return rc;
	/* Each column's first field read is its value, the others added to it. */
	for (int c = 0; c < WC_ENG_COLUMNS; c++)
		for (int i = 0, seen = 0; i < k; i++)
			if (r->map[i] == c) {
				r->sum[i] = (unsigned char)seen;
				seen = 1;
			}
	for (int i = 0; i < k; i++)
		if (r->map[i] < 0)
			r->sum[i] = 0;
	if (r->time_col < 0)
		return wc_error_set_path(err, WC_EPARSE, r->path, ":%zu: no 'timestamp' column in the header", line_no);
	r->n_cols = k;
	r->header_line = line_no;
	r->e->stack = one_stack(r->stacks);
	return WC_OK;
}
