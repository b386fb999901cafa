/*
 * The nodes of a multi-node job merged into one nvidia-smi log
 * (docs/finetune.md, "Limits"; docs/formats/telemetry.md, "Nodes of a
 * merged log"): each node numbers its GPUs from index 0 and the uuids
 * tell them apart. Each node's logger samples at its own cadence
 * (`nvidia-smi -lms 100` drifts by its own query time), so the sweeps of
 * two nodes do not alternate: read as one sample a sweep, a node-0 sweep
 * followed by another before node 1's came was a sample lacking node 1's
 * GPUs, a bad line (a 2 x 8 log with node 1 at 120 ms: 3021 of 218520
 * lines, refused).
 *
 * Once the first sample is delivered (it fixes the GPUs, their sweep
 * order and so the nodes: the k-th GPU under an index in that sample is
 * node k's; with gpu_uuids, those GPUs' indices), each
 * node's rows make that node's sweeps: a sweep closes when it holds all
 * the node's GPUs, or, by the rules of one sample (nvsmi_sweep.c), when one
 * of them comes again or one earlier in the sweep order does (the next
 * sweep begun: the sweep lacking a GPU is dropped as a bad line). The samples
 * are node 0's sweeps, with every other node's readings interpolated
 * linearly at their time between that node's sweeps on either side: each
 * GPU's power is read on its own times, the curve of docs/trace-metrics.md.
 * A node's sweeps further apart than a gap (NV_GAP_FACTOR sampling
 * intervals and NV_GAP_MIN_S) bridge nothing: node 0's sweeps between them
 * lack that node's GPUs, dropped as lost rows. A node's sweeps after node
 * 0's logger stopped, or node 0's after another's stopped, are the log's
 * tail, dropped in one warning (nvsmi_first.c).
 */
#include "nvsmi_internal.h"

#include <math.h>
#include <string.h>

void
wc__nv_nodes_hear(nv_reader *rd, int g, const char *idx, size_t idx_len, const char *uuid, size_t uuid_len)
{
	nv_nodes *nd = &rd->nodes;
	int v;
	if (idx_len == 0 || idx_len > 4 || wc__nv_digits(idx, (int)idx_len, &v) || v >= WC_TELEMETRY_MAX_GPUS)
		return;
	if (g >= 0 && !nd->index1[g])
		nd->index1[g] = (short)(v + 1);
	uint64_t h = 14695981039346656037u; /* FNV-1a, case folded as uuids compare */
	for (size_t i = 0; i < uuid_len; i++)
		h = (h ^ (unsigned char)(uuid[i] >= 'A' && uuid[i] <= 'Z' ? uuid[i] - 'A' + 'a' : uuid[i])) *
		    1099511628211u;
	int k = 0;
	while (k < nd->n_heard[v] && nd->heard[v][k] != h)
		k++;
	if (k == nd->n_heard[v] && k < NV_MAX_NODES)
		nd->heard[v][nd->n_heard[v]++] = h;
	if (g >= 0 && !nd->place1[g] && k < NV_MAX_NODES)
		nd->place1[g] = (unsigned char)(k + 1);
}

/* With gpu_uuids, the GPUs' nodes from the whole log: node k holds the
 * GPUs that are the k-th uuid seen under their index, renumbered over the
 * nodes that hold a selected GPU. A selection of one GPU on each of two
 * nodes at different indices was read one sample a sweep, 44 bad lines of
 * 990 (docs/formats/telemetry.md, "Nodes of a merged log"). 0, or -1
 * when a GPU's place is unknown. */
static int
nodes_heard(nv_reader *rd)
{
	nv_nodes *nd = &rd->nodes;
	int map[NV_MAX_NODES], n = 0;
	for (int k = 0; k < NV_MAX_NODES; k++)
		map[k] = -1;
	for (int g = 0; g < rd->n_gpus; g++)
		if (nd->place1[g] == 0)
			return -1;
	/* numbered in the order of the first sample's rows */
	for (int r = 0; r < rd->n_gpus; r++)
		for (int g = 0; g < rd->n_gpus; g++)
			if (rd->rank[g] == r && map[nd->place1[g] - 1] < 0)
				map[nd->place1[g] - 1] = n++;
	for (int g = 0; g < rd->n_gpus; g++)
		nd->of[g] = (unsigned char)(map[nd->place1[g] - 1] < 0 ? 0 : map[nd->place1[g] - 1]);
	return n;
}

void
wc__nv_nodes_start(nv_reader *rd)
{
	nv_nodes *nd = &rd->nodes;
	int n = 0;
	if (rd->col_index < 0 || rd->col_uuid < 0 || rd->n_gpus < 2)
		return;
	int heard = rd->selecting ? nodes_heard(rd) : -1;
	n = heard > 0 ? heard : 0;
	for (int g = 0; g < rd->n_gpus && heard < 0; g++) {
		int k = 0, v = wc__nv_gpu_index(rd, g);
		if (v < 0)
			return; /* an index unread: no nodes told apart */
		/* node k: the GPU is the k-th under its index in the first sample */
		for (int h = 0; h < rd->n_gpus; h++)
			k += rd->rank[h] < rd->rank[g] && wc__nv_gpu_index(rd, h) == v;
		if (k >= NV_MAX_NODES)
			return; /* read as one sample a sweep */
		nd->of[g] = (unsigned char)k;
		n = k + 1 > n ? k + 1 : n;
	}
	if (n < 2)
		return;
	memset(nd->node, 0, sizeof nd->node);
	for (int k = 0; k < n; k++)
		nd->node[k].first_gpu = -1;
	for (int g = 0; g < rd->n_gpus; g++) {
		nv_node *o = &nd->node[nd->of[g]];
		if (o->gpus++ == 0 || rd->times[g] < o->h_t[0])
			o->h_t[0] = rd->times[g];
		if (o->first_gpu < 0 || rd->rank[g] < rd->rank[o->first_gpu])
			o->first_gpu = g;
		nd->h_v[0][g] = nd->o_v[g] = rd->vals[g];
		nd->o_t[g] = rd->times[g]; /* a line of it written twice is read once */
	}
	for (int k = 0; k < n; k++) {
		nd->node[k].h_n = 1;
		nd->node[k].r_t[0] = nd->node[k].h_t[0];
		nd->node[k].r_line[0] = rd->first_line;
		nd->node[k].r_n = 1;
		nd->node[k].beyond = nd->node[k].h_t[0] > nd->node[0].h_t[0];
	}
	nd->ref_t = nd->node[0].h_t[0];
	nd->q_head = nd->q_n = 0;
	nd->n = n;
}

/* Node k's readings at time t into `out`: 1 when interpolated, 0 when it
 * has no sweep at or after t yet, -1 when it cannot give one (t before its
 * sweeps kept, or within a gap of its sampling). */
static int
interpolate(nv_reader *rd, int k, double t, double *out)
{
	nv_nodes *nd = &rd->nodes;
	const nv_node *o = &nd->node[k];
	size_t kept = o->h_n < NV_NODE_HIST ? o->h_n : NV_NODE_HIST;
	double cadence = rd->gaps.cadence > 0 ? rd->gaps.cadence : 0.0;
	if (o->h_t[(o->h_n - 1) % NV_NODE_HIST] < t)
		return 0;
	for (size_t j = o->h_n - kept; j + 1 < o->h_n; j++) {
		size_t a = j % NV_NODE_HIST, b = (j + 1) % NV_NODE_HIST;
		double ta = o->h_t[a], tb = o->h_t[b];
		if (!(ta <= t && t <= tb))
			continue;
		if (tb - ta > NV_GAP_MIN_S && tb - ta > NV_GAP_FACTOR * cadence)
			return -1;
		double w = tb > ta ? (t - ta) / (tb - ta) : 1.0;
		for (int g = 0; g < rd->n_gpus; g++)
			if (nd->of[g] == k)
				out[g] = nd->h_v[a][g] + w * (nd->h_v[b][g] - nd->h_v[a][g]);
		return 1;
	}
	/* at the time of its one sweep kept, or before its sweeps kept */
	if (kept == 1 && o->h_t[(o->h_n - 1) % NV_NODE_HIST] == t) {
		for (int g = 0; g < rd->n_gpus; g++)
			if (nd->of[g] == k)
				out[g] = nd->h_v[(o->h_n - 1) % NV_NODE_HIST][g];
		return 1;
	}
	return -1;
}

/* Waiting samples into the caller's hands, the oldest first, as soon as
 * every node gave its readings; at the end (`at_end`) or with the queue
 * full, the oldest lacking a node's is dropped (nvsmi_first.c: a lost row,
 * or the log's tail at its end). */
static int
deliver_ready(nv_reader *rd, int at_end)
{
	nv_nodes *nd = &rd->nodes;
	unsigned all = ((1u << nd->n) - 1) & ~1u;
	for (size_t i = 0; i < nd->q_n; i++) {
		size_t at = (nd->q_head + i) % NV_NODE_QUEUE;
		for (int k = 1; k < nd->n; k++) {
			unsigned bit = 1u << k;
			if ((nd->q[at].got | nd->q[at].lost) & bit)
				continue;
			int r = interpolate(rd, k, nd->q[at].t, nd->q_v[at]);
			if (r > 0)
				nd->q[at].got |= bit;
			else if (r < 0)
				nd->q[at].lost |= bit;
		}
	}
	while (nd->q_n > 0) {
		size_t at = nd->q_head;
		unsigned done = nd->q[at].got | nd->q[at].lost;
		if (done != all && !at_end && nd->q_n < NV_NODE_QUEUE)
			break;
		nd->q_head = (nd->q_head + 1) % NV_NODE_QUEUE;
		nd->q_n--;
		rd->first_line = nd->q[at].line;
		if (nd->q[at].got != all) {
			int k = 1;
			while (nd->q[at].got >> k & 1)
				k++;
			wc__nv_hold_missing(rd, nd->q[at].line, nd->node[k].first_gpu);
			continue;
		}
		if (rd->n_tail > 0)
			wc__nv_flush_missing(rd);
		memcpy(rd->vals, nd->q_v[at], sizeof rd->vals);
		rd->t = rd->t_min = rd->t_max = nd->q[at].t;
		int rc = wc__nv_deliver(rd);
		if (rc != WC_OK)
			return rc;
	}
	return WC_OK;
}

/* Node k's open sweep closes (`line` the line that closed it, 0 at the
 * end): dropped when a bad line is in it or next to it, or when it lacks
 * a GPU (a bad line); else kept, and node 0's waits for the others. */
static int
close_sweep(nv_reader *rd, int k, size_t line)
{
	nv_nodes *nd = &rd->nodes;
	nv_node *o = &nd->node[k];
	int bad_near = rd->last_bad_line > 0 && rd->last_bad_line + (size_t)o->gpus >= o->line;
	o->open = 0;
	if (o->tainted || (o->rows < o->gpus && bad_near)) {
		rd->info->dropped_samples++;
		return WC_OK;
	}
	if (o->rows < o->gpus) {
		int g = 0;
		char label[64];
		while (g < rd->n_gpus && (nd->of[g] != k || (o->mask >> g & 1)))
			g++;
		wc__nv_gpu_label(rd, g, label, sizeof label);
		rd->info->dropped_samples++;
		if (line == 0)
			wc__warn(rd->opt, rd->path, ":%zu: last sample is incomplete (%s missing); dropped", o->line, label);
		else
			wc__bad_line(&rd->bad, line, "%s is missing from the sample at line %zu; sample dropped", label,
			             o->line);
		return WC_OK;
	}
	double span = o->t_max - o->t;
	if (span > rd->info->max_sweep_span_s)
		rd->info->max_sweep_span_s = span;
	rd->info->wide_sweeps += span > WC_NVSMI_SWEEP_TOL_S;
	size_t h = o->h_n++ % NV_NODE_HIST, r = o->r_n++ % NV_NODE_RING;
	o->h_t[h] = o->r_t[r] = o->t;
	o->r_line[r] = o->line;
	for (int g = 0; g < rd->n_gpus; g++)
		if (nd->of[g] == k)
			nd->h_v[h][g] = nd->o_v[g];
	if (k > 0) {
		o->beyond += o->t > nd->ref_t;
		return deliver_ready(rd, 0);
	}
	/* node 0's sweep: a sample once the others' readings come; the
	 * others' sweeps up to it are no longer after node 0's last */
	for (int j = 1; j < nd->n; j++) {
		nv_node *p = &nd->node[j];
		size_t kept = p->r_n < NV_NODE_RING ? p->r_n : NV_NODE_RING;
		/* newest first: those after the last one up to this one */
		for (size_t i = p->r_n; i > p->r_n - kept && p->beyond > 0; i--) {
			double ti = p->r_t[(i - 1) % NV_NODE_RING];
			if (ti <= nd->ref_t)
				break;
			p->beyond -= ti <= o->t;
		}
	}
	nd->ref_t = o->t;
	int rc = nd->q_n == NV_NODE_QUEUE ? deliver_ready(rd, 0) : WC_OK;
	if (rc != WC_OK)
		return rc;
	size_t at = (nd->q_head + nd->q_n++) % NV_NODE_QUEUE;
	nd->q[at].t = o->t;
	nd->q[at].line = o->line;
	nd->q[at].got = nd->q[at].lost = 0;
	for (int g = 0; g < rd->n_gpus; g++)
		if (nd->of[g] == 0)
			nd->q_v[at][g] = nd->o_v[g];
	return deliver_ready(rd, 0);
}

int
wc__nv_nodes_row(nv_reader *rd, const nv_row *row, size_t line_no)
{
	nv_nodes *nd = &rd->nodes;
	int named = row->ok || (rd->mode == NV_KEY_INDEX && !rd->selecting ? row->idx != NULL : row->uuid != NULL);
	int slot = named ? wc__nv_find_slot(rd, row, line_no, row->ok) : -3;
	if (slot == -2)
		return WC_OK;
	if (slot < 0) {
		rd->last_bad_line = line_no; /* no GPU's place: drops the sweep next to it */
		return WC_OK;
	}
	nv_node *o = &nd->node[nd->of[slot]];
	uint64_t bit = (uint64_t)1 << slot;
	if (row->ok && (!o->open || (o->mask & bit)) && nd->o_t[slot] == row->t) {
		/* the line written twice (in the open sweep or the last one); with
		 * another reading, a stray line */
		if (nd->o_v[slot] != row->watts) {
			char label[64];
			wc__nv_gpu_label(rd, slot, label, sizeof label);
			wc__bad_line(&rd->bad, line_no, "%s again at the time of its row at line %zu, with another "
			             "reading%s", label, o->line, o->open ? "; sample dropped" : "");
			o->tainted += o->open;
		}
		return WC_OK;
	}
	if (o->open && ((o->mask & bit) || rd->rank[slot] < rd->rank[o->last])) {
		int rc = close_sweep(rd, nd->of[slot], line_no);
		if (rc != WC_OK)
			return rc;
	}
	if (!o->open) {
		o->open = 1;
		o->rows = o->tainted = 0;
		o->mask = 0;
		o->t = o->t_max = row->ok ? row->t : NAN;
		o->line = line_no;
	}
	if (row->ok) {
		if (isnan(o->t))
			o->t = row->t;
		o->t_max = row->t > o->t_max || isnan(o->t_max) ? row->t : o->t_max;
		nd->o_v[slot] = row->watts;
		nd->o_t[slot] = row->t;
	} else {
		nd->o_t[slot] = NAN;
		o->tainted++;
	}
	o->mask |= bit;
	o->rows++;
	o->last = slot;
	/* whole: closed now, so that each node's sweeps are taken in the
	 * order of the lines (node 0's last one not only at the log's end) */
	return o->rows == o->gpus ? close_sweep(rd, nd->of[slot], line_no) : WC_OK;
}

int
wc__nv_nodes_finish(nv_reader *rd)
{
	nv_nodes *nd = &rd->nodes;
	int rc = WC_OK, tail = -1;
	for (int k = 0; k < nd->n && rc == WC_OK; k++)
		if (nd->node[k].open)
			rc = close_sweep(rd, k, 0);
	if (rc == WC_OK)
		rc = deliver_ready(rd, 1);
	if (rc != WC_OK)
		return rc;
	/* node 0's logger stopped first: the sweeps of the node that went on
	 * longest after it are the log's tail, said as such (nvsmi_first.c) */
	for (int k = 1; k < nd->n; k++)
		if (nd->node[k].beyond > 0 && (tail < 0 || nd->node[k].beyond > nd->node[tail].beyond))
			tail = k;
	if (tail > 0 && rd->n_tail == 0) {
		nv_node *o = &nd->node[tail];
		size_t n = o->beyond < NV_NODE_RING ? o->beyond : NV_NODE_RING;
		for (size_t i = o->r_n - n; i < o->r_n; i++) {
			rd->first_line = o->r_line[i % NV_NODE_RING];
			wc__nv_hold_missing(rd, rd->first_line, nd->node[0].first_gpu);
		}
	}
	return WC_OK;
}
