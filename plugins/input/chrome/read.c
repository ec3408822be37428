/*
 * The Trace Event Format reader: yajl callbacks (through libfkjson) that
 * keep, of each event, what the chrome plugin uses (ph, name, pid, tid,
 * ts, dur, id, and of its args the thread name, the Profile's startTime
 * and a ProfileChunk's nodes, samples and timeDeltas) and drop the rest as
 * it passes.  An event's members come in any order (Chrome writes them
 * sorted, "args" first), so an event is judged when it closes.  Both the
 * {"traceEvents": [...]} object and the bare array are read; the array may
 * lack its closing "]", as the format allows for a trace cut short.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chrome.h"
#include "cpuhead.h"
#include "fk_json.h"

enum kind { K_SKIP, K_TOP, K_EVENTS, K_EVENT, K_ARGS, K_DATA, K_CPU, K_NODES, K_NODE, K_CF,
            K_SAMPLES, K_DELTAS, K_KIDS, K_STAMPS, K_TSAMPLES, K_TSAMPLE, K_SFRAMES, K_SFRAME };
enum key { Y_OTHER, Y_TRACE, Y_PH, Y_NAME, Y_PID, Y_TID, Y_TS, Y_DUR, Y_ID, Y_ARGS, Y_DATA,
           Y_START, Y_CPU, Y_NODES, Y_SAMPLES, Y_DELTAS, Y_PARENT, Y_CF, Y_FN, Y_URL, Y_LINE,
           Y_KIDS, Y_HEAD, Y_STAMPS, Y_SFRAMES, Y_SF };

static const struct { unsigned char kind; const char *name; unsigned char key; } keys[] = {
	{ K_TOP, "traceEvents", Y_TRACE },
	/* the format's samples and stackFrames, beside the events (Hermes) */
	{ K_TOP, "samples", Y_SAMPLES }, { K_TOP, "stackFrames", Y_SFRAMES },
	{ K_TSAMPLE, "pid", Y_PID }, { K_TSAMPLE, "tid", Y_TID }, { K_TSAMPLE, "ts", Y_TS },
	{ K_TSAMPLE, "sf", Y_SF }, { K_SFRAME, "name", Y_NAME }, { K_SFRAME, "parent", Y_PARENT },
	{ K_EVENT, "ph", Y_PH }, { K_EVENT, "name", Y_NAME }, { K_EVENT, "pid", Y_PID },
	{ K_EVENT, "tid", Y_TID }, { K_EVENT, "ts", Y_TS }, { K_EVENT, "dur", Y_DUR },
	{ K_EVENT, "id", Y_ID }, { K_EVENT, "args", Y_ARGS },
	{ K_ARGS, "name", Y_NAME }, { K_ARGS, "data", Y_DATA },
	{ K_DATA, "startTime", Y_START }, { K_DATA, "cpuProfile", Y_CPU },
	{ K_DATA, "timeDeltas", Y_DELTAS },
	{ K_CPU, "nodes", Y_NODES }, { K_CPU, "samples", Y_SAMPLES },
	{ K_CPU, "timeDeltas", Y_DELTAS }, { K_CPU, "startTime", Y_START }, /* a CpuProfile event's */
	{ K_CPU, "head", Y_HEAD }, { K_CPU, "timestamps", Y_STAMPS },     /* ... of the old format */
	{ K_NODE, "children", Y_KIDS },
	{ K_NODE, "id", Y_ID }, { K_NODE, "parent", Y_PARENT }, { K_NODE, "callFrame", Y_CF },
	{ K_CF, "functionName", Y_FN }, { K_CF, "url", Y_URL }, { K_CF, "lineNumber", Y_LINE },
};

struct rd {
	const struct fk_host *h;
	struct fk_input *in;
	struct cr_trace *t;
	struct fk_json j;
	unsigned char kind[FK_JSON_MAX_DEPTH + 2];
	unsigned char key[FK_JSON_MAX_DEPTH + 2];
	uint32_t seen[FK_JSON_MAX_DEPTH + 2];
	unsigned depth;
	int top_array;
	/* the event being read */
	struct fk_json_str ph, name, id, argname;
	int has_pid, has_tid, has_ts, has_dur, has_start, has_cpu, has_deltas;
	double pid, tid, ts, dur, start;
	size_t text_mark;          /* t->tlen at the event's start */
	struct cr_node *nodes;     /* a ProfileChunk's nodes, samples and deltas */
	size_t nnodes, capnodes;
	double *samples, *deltas;
	size_t nsamples, capsamples, ndeltas, capdeltas;
	double *kids, *edges;      /* the node's children; the event's (parent, child) pairs */
	size_t nkids, capkids, nedges, capedges;
	struct fk_cpuhead head;    /* the old format's tree, while it is open */
	int has_head;              /* this event's cpuProfile is of the old format: */
	double *stamps;            /* its "timestamps" (us), its startTime in seconds */
	size_t nstamps, capstamps;
	unsigned ncpuprofiles;
	/* the node being read */
	int node_has_id, node_has_cf;
	double node_id, node_parent, node_line;
	int has_line;
	struct fk_json_str fn, url;
	uint64_t line;             /* the event's last line, for skips */
	size_t seq;
};

static int add_text(struct rd *r, const char *s, size_t n)
{
	struct cr_trace *t = r->t;

	if (CR_GROW(r->h, t->text, t->tcap, t->tlen + n + 1) < 0)
		return fk_json_nomem(&r->j);
	memcpy(t->text + t->tlen, s, n);
	t->tlen += n;
	return 1;
}

static int push_num(struct rd *r, double **v, size_t *n, size_t *cap, double x)
{
	if (fk_vector_grow((void **)v, cap, *n + 1, sizeof **v, r->h->realloc) < 0)
		return fk_json_nomem(&r->j);
	(*v)[(*n)++] = x;
	return 1;
}

static int int32_of(double x)
{
	return x >= INT32_MIN && x <= INT32_MAX && x == floor(x);
}

/* The thread (pid, tid), added when new. */
static size_t thread_of(struct rd *r, int32_t pid, int32_t tid)
{
	struct cr_trace *t = r->t;
	struct cr_thread *th;

	for (size_t i = t->nthreads; i-- > 0;)
		if (t->threads[i].pid == pid && t->threads[i].tid == tid)
			return i;
	if (t->nthreads >= UINT32_MAX - 1 || CR_GROW(r->h, t->threads, t->capthreads, t->nthreads + 1) < 0)
		return CR_NONE;
	th = &t->threads[t->nthreads];
	memset(th, 0, sizeof *th);
	th->pid = pid;
	th->tid = tid;
	return t->nthreads++;
}

static struct cr_prof *prof_of(struct rd *r)
{
	struct cr_trace *t = r->t;
	struct cr_prof *p;
	const char *id = r->id.set ? r->id.s : "";

	for (size_t i = 0; i < t->nprofs; i++)
		if (t->profs[i].pid == r->pid && strcmp(t->profs[i].id, id) == 0)
			return &t->profs[i];
	if (CR_GROW(r->h, t->profs, t->capprofs, t->nprofs + 1) < 0)
		return NULL;
	p = &t->profs[t->nprofs++];
	memset(p, 0, sizeof *p);
	p->pid = r->pid;
	snprintf(p->id, sizeof p->id, "%s", id);
	return p;
}

static int chunk(struct rd *r)
{
	struct cr_prof *p = prof_of(r);

	if (!p)
		return fk_json_nomem(&r->j);
	if (!p->has_thread) { /* until the Profile event says which */
		p->spid = (int32_t)r->pid;
		p->stid = (int32_t)r->tid;
	}
	if (r->nsamples != r->ndeltas)
		return fk_json_fail(&r->j, "a ProfileChunk has %zu samples and %zu timeDeltas",
		                    r->nsamples, r->ndeltas);
	if (CR_GROW(r->h, p->v, p->capv, p->n + r->nnodes) < 0 ||
	    CR_GROW(r->h, p->s, p->caps, p->ns + r->nsamples) < 0 ||
	    CR_GROW(r->h, p->edges, p->capedges, p->nedges + r->nedges) < 0)
		return fk_json_nomem(&r->j);
	if (r->nedges)
		memcpy(p->edges + p->nedges, r->edges, r->nedges * sizeof *r->edges);
	p->nedges += r->nedges;
	if (r->nnodes)
		memcpy(p->v + p->n, r->nodes, r->nnodes * sizeof *r->nodes);
	p->n += r->nnodes;
	for (size_t i = 0; i < r->nsamples; i++) {
		struct cr_sample *s = &p->s[p->ns++];
		p->cum += r->deltas[i];
		s->node = r->samples[i];
		s->t = p->cum;
		s->seq = p->ns;
		s->line = r->line;
	}
	r->text_mark = r->t->tlen; /* the nodes' names stay */
	return 1;
}

static int add_dur(struct rd *r, size_t th, double start, double end)
{
	struct cr_trace *t = r->t;
	struct cr_dur *d;

	if (CR_GROW(r->h, t->durs, t->capdurs, t->ndurs + 1) < 0)
		return -1;
	d = &t->durs[t->ndurs++];
	d->thread = (uint32_t)th;
	d->name_off = t->tlen;
	d->name_len = r->name.set ? r->name.len : 0;
	if (r->name.set && add_text(r, r->name.s, r->name.len) == 0)
		return -1;
	r->text_mark = t->tlen;
	d->start = start;
	d->end = end;
	d->seq = r->seq++;
	d->line = r->line;
	return 0;
}

/* The old format's times as the current format's: the deltas of its
 * timestamps, the first from its startTime (in seconds). */
static int old_times(struct rd *r)
{
	double prev = r->has_start ? r->start * 1e6 : r->nstamps ? r->stamps[0] : 0;

	r->ndeltas = 0;
	r->has_deltas = r->nstamps > 0;
	for (size_t i = 0; i < r->nstamps; i++) {
		if (!push_num(r, &r->deltas, &r->ndeltas, &r->capdeltas, r->stamps[i] - prev))
			return 0;
		prev = r->stamps[i];
	}
	if (r->has_start)
		r->start *= 1e6;
	return 1;
}

static int end_event(struct rd *r)
{
	struct cr_trace *t = r->t;
	const char *ph = r->ph.set ? r->ph.s : "";
	int is_chunk = ph[0] == 'P' && r->name.set && strcmp(r->name.s, "ProfileChunk") == 0;
	int is_prof = ph[0] == 'P' && r->name.set && strcmp(r->name.s, "Profile") == 0;
	/* older Chrome: a whole .cpuprofile in one "CpuProfile" event */
	int is_cpuprofile = r->name.set && strcmp(r->name.s, "CpuProfile") == 0 && r->has_cpu;
	int rc = 1;
	size_t th;

	r->line = fk_json_line(&r->j);
	if (is_cpuprofile) {
		struct cr_prof *p;
		char id[32];
		int n = snprintf(id, sizeof id, "CpuProfile %u", ++r->ncpuprofiles);
		if (!r->has_pid || !r->has_tid || !int32_of(r->pid) || !int32_of(r->tid)) {
			rc = fk_json_fail(&r->j, "a \"CpuProfile\" event has no numeric pid and tid");
			goto out;
		}
		if (!fk_json_str_set(&r->j, &r->id, (const unsigned char *)id, (size_t)n) || (r->has_head && !old_times(r))) {
			rc = 0;
			goto out;
		}
		if (!(rc = chunk(r)))
			goto out;
		p = prof_of(r);
		p->has_thread = 1;
		p->spid = (int32_t)r->pid;
		p->stid = (int32_t)r->tid;
		p->start = r->has_start ? r->start : r->has_ts ? r->ts : 0;
		goto out;
	}
	if (ph[0] && ph[1]) /* no phase of the format has two letters */
		goto out;
	if (strchr("PMXBE", ph[0]) == NULL || (ph[0] == 'P' && !is_chunk && !is_prof) ||
	    (ph[0] == 'M' && !(r->name.set && strcmp(r->name.s, "thread_name") == 0)))
		goto out;
	if (!r->has_pid || !r->has_tid || !int32_of(r->pid) || !int32_of(r->tid)) {
		rc = fk_json_fail(&r->j, "a \"%s\" event has no numeric pid and tid", ph);
		goto out;
	}
	if (is_chunk) {
		rc = chunk(r);
	} else if (is_prof) {
		struct cr_prof *p = prof_of(r);
		if (!p) {
			rc = fk_json_nomem(&r->j);
			goto out;
		}
		p->has_thread = 1;
		p->spid = (int32_t)r->pid;
		p->stid = (int32_t)r->tid;
		if (r->has_start || r->has_ts) {
			p->start = r->has_start ? r->start : r->ts;
			p->has_start = 1;
		}
	} else if ((th = thread_of(r, (int32_t)r->pid, (int32_t)r->tid)) == CR_NONE) {
		rc = fk_json_nomem(&r->j);
	} else if (ph[0] == 'M') {
		struct cr_thread *x = &t->threads[th];
		if (r->argname.set) {
			x->name_off = t->tlen;
			x->name_len = r->argname.len;
			x->named = 1;
			rc = add_text(r, r->argname.s, r->argname.len);
			r->text_mark = t->tlen;
		}
	} else if (!r->has_ts || (ph[0] == 'X' && !r->has_dur) || (ph[0] == 'X' && r->dur < 0)) {
		r->h->input_skip(r->in, r->line); /* no time: nowhere to draw it */
	} else if (ph[0] == 'X') {
		if (add_dur(r, th, r->ts, r->ts + r->dur) < 0)
			rc = fk_json_nomem(&r->j);
	} else if (ph[0] == 'B') {
		struct cr_thread *x = &t->threads[th];
		if (add_dur(r, th, r->ts, NAN) < 0 || CR_GROW(r->h, x->open, x->capopen, x->nopen + 1) < 0)
			rc = fk_json_nomem(&r->j);
		else
			x->open[x->nopen++] = t->ndurs - 1;
	} else { /* E: ends the innermost B of its thread */
		struct cr_thread *x = &t->threads[th];
		if (!x->nopen || r->ts < t->durs[x->open[x->nopen - 1]].start)
			r->h->input_skip(r->in, r->line);
		else
			t->durs[x->open[--x->nopen]].end = r->ts;
	}
out:
	t->tlen = r->text_mark; /* a node name of an event that was no chunk */
	return rc;
}

static void begin_event(struct rd *r)
{
	r->ph.set = r->name.set = r->id.set = r->argname.set = 0;
	r->has_pid = r->has_tid = r->has_ts = r->has_dur = r->has_start = 0;
	r->has_cpu = r->has_deltas = 0;
	r->nnodes = r->nsamples = r->ndeltas = r->nedges = r->nstamps = 0;
	r->has_head = 0;
	r->text_mark = r->t->tlen;
}

static void begin_node(struct rd *r)
{
	r->node_has_id = r->node_has_cf = r->has_line = 0;
	r->node_parent = NAN;
	r->fn.set = r->url.set = 0;
	r->nkids = 0;
}

/* The node being read, its name the text from off on, into *nd. */
static void fill_node(const struct rd *r, struct cr_node *nd, size_t off)
{
	memset(nd, 0, sizeof *nd);
	nd->id = r->node_id;
	nd->parent_id = r->node_parent;
	nd->name_off = off;
	nd->name_len = r->t->tlen - off;
	nd->parent = CR_NONE;
	nd->leaf = FK_NODE_NONE;
}

/* A node is complete: "FUNCTION URL:LINE", as the v8 plugin names it. */
static int end_node(struct rd *r)
{
	struct cr_trace *t = r->t;
	struct cr_node *nd;
	size_t off = t->tlen;

	if (!r->node_has_id || !r->node_has_cf || !r->fn.set)
		return fk_json_fail(&r->j, "a cpuProfile node has no numeric id or no callFrame "
		                    "with a functionName");
	if (CR_GROW(r->h, r->nodes, r->capnodes, r->nnodes + 1) < 0)
		return fk_json_nomem(&r->j);
	if (!add_text(r, r->fn.len ? r->fn.s : "(anonymous)", r->fn.len ? r->fn.len : 11))
		return 0;
	if (r->url.set && r->url.len) {
		char num[32] = "";
		if (r->has_line && r->node_line >= 0 && r->node_line < 1e15)
			snprintf(num, sizeof num, ":%.0f", r->node_line + 1);
		if (!add_text(r, " ", 1) || !add_text(r, r->url.s, r->url.len) || !add_text(r, num, strlen(num)))
			return 0;
	}
	for (size_t i = 0; i < r->nkids; i++)
		if (!push_num(r, &r->edges, &r->nedges, &r->capedges, r->node_id) ||
		    !push_num(r, &r->edges, &r->nedges, &r->capedges, r->kids[i]))
			return 0;
	nd = &r->nodes[r->nnodes++];
	fill_node(r, nd, off);
	nd->is_root = r->fn.len == 6 && memcmp(r->fn.s, "(root)", 6) == 0 && !(r->url.set && r->url.len);
	return 1;
}

/* A pid, tid, ts or dur: a number, or a string of one ("tid": "7695", as
 * Hermes writes them). */
static int id_num(int type, double num, const unsigned char *s, size_t len, double *out)
{
	char b[32], *end;

	if (type == 'n') {
		*out = num;
		return fabs(num) < 1e300;
	}
	if (type != 's' || len == 0 || len >= sizeof b)
		return 0;
	memcpy(b, s, len);
	b[len] = 0;
	*out = strtod(b, &end);
	return *end == 0 && b[0] != ' ' && fabs(*out) < 1e300;
}

/* An event's or top-level sample's pid, tid or ts. */
static int where_when(struct rd *r, unsigned key, int type, double num, const unsigned char *s, size_t len)
{
	if (key == Y_PID)
		r->has_pid = id_num(type, num, s, len, &r->pid);
	else if (key == Y_TID)
		r->has_tid = id_num(type, num, s, len, &r->tid);
	else
		r->has_ts = id_num(type, num, s, len, &r->ts);
	return 1;
}

static int scalar(void *x, int type, double num, const unsigned char *s, size_t len)
{
	struct rd *r = x;
	unsigned k = r->kind[r->depth], key = r->key[r->depth];
	int isnum = type == 'n' && fabs(num) < 1e300;

	if (fk_cpuhead_active(&r->head))
		return fk_cpuhead_scalar(&r->head, type, num, s, len);
	switch (k) {
	case K_EVENTS:
		return fk_json_fail(&r->j, "an event is not an object");
	case K_EVENT:
		switch (key) {
		case Y_PH: return type == 's' ? fk_json_str_set(&r->j, &r->ph, s, len) : 1;
		case Y_NAME: return type == 's' ? fk_json_str_set(&r->j, &r->name, s, len) : 1;
		case Y_ID:
			if (type == 's')
				return fk_json_str_set(&r->j, &r->id, s, len > 40 ? 40 : len);
			if (isnum) {
				char b[40];
				int n = snprintf(b, sizeof b, "%.17g", num);
				return fk_json_str_set(&r->j, &r->id, (const unsigned char *)b, (size_t)n);
			}
			return 1;
		case Y_PID: case Y_TID: case Y_TS: return where_when(r, key, type, num, s, len);
		case Y_DUR: r->has_dur = id_num(type, num, s, len, &r->dur); return 1;
		}
		return 1;
	case K_ARGS:
		if (key == Y_NAME && type == 's')
			return fk_json_str_set(&r->j, &r->argname, s, len);
		return 1;
	case K_DATA:
	case K_CPU:
		if (key == Y_START && isnum)
			r->has_start = 1, r->start = num;
		return 1;
	case K_KIDS:
		if (!isnum)
			return fk_json_fail(&r->j, "a child of a cpuProfile node is not a node id");
		return push_num(r, &r->kids, &r->nkids, &r->capkids, num);
	case K_SAMPLES:
		if (!isnum)
			return fk_json_fail(&r->j, "a sample of a cpuProfile is not a node id");
		return push_num(r, &r->samples, &r->nsamples, &r->capsamples, num);
	case K_DELTAS:
		if (!isnum)
			return fk_json_fail(&r->j, "a time delta is not a number");
		return push_num(r, &r->deltas, &r->ndeltas, &r->capdeltas, num);
	case K_STAMPS:
		if (!isnum)
			return fk_json_fail(&r->j, "a timestamp is not a number");
		return push_num(r, &r->stamps, &r->nstamps, &r->capstamps, num);
	case K_NODES:
		return fk_json_fail(&r->j, "a cpuProfile node is not an object");
	case K_NODE:
		if (key == Y_ID && isnum)
			r->node_has_id = 1, r->node_id = num;
		else if (key == Y_PARENT && isnum)
			r->node_parent = num;
		return 1;
	case K_CF:
		if (key == Y_FN && type == 's')
			return fk_json_str_set(&r->j, &r->fn, s, len);
		if (key == Y_URL && type == 's')
			return fk_json_str_set(&r->j, &r->url, s, len);
		if (key == Y_LINE && isnum)
			r->has_line = 1, r->node_line = num;
		return 1;
	case K_TSAMPLE:
		if (key == Y_SF)
			r->node_has_id = id_num(type, num, s, len, &r->node_id);
		return key == Y_PID || key == Y_TID || key == Y_TS ? where_when(r, key, type, num, s, len) : 1;
	case K_SFRAME:
		if (key == Y_NAME && type == 's')
			return fk_json_str_set(&r->j, &r->fn, s, len);
		if (key == Y_PARENT && !id_num(type, num, s, len, &r->node_parent))
			r->node_parent = NAN;
		return 1;
	case K_TSAMPLES:
		return fk_json_fail(&r->j, "a sample is not an object");
	case K_SFRAMES:
		return fk_json_fail(&r->j, "a stack frame is not an object");
	case K_TOP:
		if (key == Y_TRACE)
			return fk_json_fail(&r->j, "\"traceEvents\" is not an array");
		return 1;
	}
	if (r->depth == 0)
		return fk_json_fail(&r->j, "the JSON is neither an array of events nor an object");
	return 1;
}


static int on_key(void *x, const unsigned char *s, size_t len)
{
	struct rd *r = x;
	unsigned k = r->kind[r->depth];

	if (fk_cpuhead_active(&r->head))
		return fk_cpuhead_key(&r->head, s, len);
	r->key[r->depth] = Y_OTHER;
	if (k == K_SFRAMES) { /* a stack frame's id */
		r->node_has_id = id_num('s', 0, s, len, &r->node_id);
		return 1;
	}
	if (k == K_SKIP || k == K_EVENTS || k == K_SAMPLES || k == K_DELTAS || k == K_NODES)
		return 1;
	for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
		if (keys[i].kind == k && strlen(keys[i].name) == len && !memcmp(keys[i].name, s, len)) {
			/* the first of a repeated key counts, as in a document walk */
			if (!(r->seen[r->depth] & (1u << keys[i].key)))
				r->key[r->depth] = keys[i].key;
			r->seen[r->depth] |= 1u << keys[i].key;
			break;
		}
	return 1;
}

static int open_container(void *x, int is_map)
{
	struct rd *r = x;
	unsigned parent = r->kind[r->depth], key = r->key[r->depth], nk = K_SKIP;

	if (fk_cpuhead_active(&r->head))
		return fk_cpuhead_open(&r->head, is_map);
	if (parent == K_CPU && key == Y_HEAD && is_map) {
		r->has_head = 1;
		return fk_cpuhead_begin(&r->head);
	}
	if (r->depth >= FK_JSON_MAX_DEPTH)
		return 0; /* yajl reports it, at this byte */
	r->j.unclosed_ok = 0;
	if (r->depth == 0)
		nk = is_map ? K_TOP : K_EVENTS, r->top_array = !is_map;
	else if (parent == K_TOP && key == Y_TRACE && !is_map)
		nk = K_EVENTS;
	else if (parent == K_TOP && key == Y_TRACE)
		return fk_json_fail(&r->j, "\"traceEvents\" is not an array");
	else if (parent == K_TOP && key == Y_SAMPLES && !is_map)
		nk = K_TSAMPLES;
	else if (parent == K_TOP && key == Y_SFRAMES && is_map)
		nk = K_SFRAMES;
	else if (parent == K_TSAMPLES && is_map)
		nk = K_TSAMPLE, r->has_pid = r->has_tid = r->has_ts = r->node_has_id = 0;
	else if (parent == K_SFRAMES && is_map) {
		int has_id = r->node_has_id;
		double id = r->node_id;
		begin_node(r);
		nk = K_SFRAME, r->node_has_id = has_id, r->node_id = id;
	} else if (parent == K_TSAMPLES || parent == K_SFRAMES)
		return scalar(r, 'a', NAN, NULL, 0);
	else if (parent == K_EVENTS && is_map)
		nk = K_EVENT, begin_event(r);
	else if (parent == K_EVENTS)
		return fk_json_fail(&r->j, "an event is not an object");
	else if (parent == K_EVENT && key == Y_ARGS && is_map)
		nk = K_ARGS;
	else if (parent == K_ARGS && key == Y_DATA && is_map)
		nk = K_DATA;
	else if (parent == K_DATA && key == Y_CPU && is_map)
		nk = K_CPU, r->has_cpu = 1;
	else if ((parent == K_DATA || parent == K_CPU) && key == Y_DELTAS && !is_map && !r->has_deltas)
		nk = K_DELTAS, r->has_deltas = 1; /* newer Chrome writes them in both: the first counts */
	else if (parent == K_CPU && key == Y_NODES && !is_map)
		nk = K_NODES;
	else if (parent == K_CPU && key == Y_SAMPLES && !is_map)
		nk = K_SAMPLES;
	else if (parent == K_CPU && key == Y_STAMPS && !is_map)
		nk = K_STAMPS;
	else if (parent == K_NODES && is_map)
		nk = K_NODE, begin_node(r);
	else if (parent == K_NODE && key == Y_CF && is_map)
		nk = K_CF, r->node_has_cf = 1;
	else if (parent == K_NODE && key == Y_KIDS && !is_map)
		nk = K_KIDS;
	else if (parent == K_SAMPLES || parent == K_DELTAS || parent == K_NODES || parent == K_KIDS)
		return scalar(r, 'a', NAN, NULL, 0);
	r->depth++;
	r->kind[r->depth] = (unsigned char)nk;
	r->key[r->depth] = Y_OTHER;
	r->seen[r->depth] = 0;
	return 1;
}

/* A top-level sample: one of its thread's profile, at its ts.  Without a
 * pid, tid, ts or stack frame it is skipped and counted. */
static int end_tsample(struct rd *r)
{
	struct cr_prof *p;
	struct cr_sample *smp;
	char id[40];

	if (!r->has_pid || !r->has_tid || !r->has_ts || !r->node_has_id || !int32_of(r->pid) ||
	    !int32_of(r->tid)) {
		r->h->input_skip(r->in, fk_json_line(&r->j));
		return 1;
	}
	snprintf(id, sizeof id, "samples of tid %.0f", r->tid);
	if (!fk_json_str_set(&r->j, &r->id, (const unsigned char *)id, strlen(id)))
		return 0;
	if (!(p = prof_of(r)) || CR_GROW(r->h, p->s, p->caps, p->ns + 1) < 0)
		return fk_json_nomem(&r->j);
	p->from_sf = p->has_thread = p->has_start = 1;
	p->spid = (int32_t)r->pid;
	p->stid = (int32_t)r->tid;
	smp = &p->s[p->ns++];
	smp->node = r->node_id;
	smp->t = r->ts;
	smp->seq = p->ns;
	smp->line = fk_json_line(&r->j);
	return 1;
}

/* A stack frame of "stackFrames": a node named by its "name". */
static int end_sframe(struct rd *r)
{
	struct cr_trace *t = r->t;
	size_t off = t->tlen;

	if (!r->node_has_id || !r->fn.set)
		return fk_json_fail(&r->j, "a stack frame has no numeric id or no name");
	if (CR_GROW(r->h, t->sfv, t->capsfv, t->nsfv + 1) < 0)
		return fk_json_nomem(&r->j);
	if (!add_text(r, r->fn.s, r->fn.len))
		return 0;
	fill_node(r, &t->sfv[t->nsfv++], off);
	r->node_has_id = 0;
	return 1;
}

/* Each thread of the top-level samples gets its own copy of the frames. */
static int give_frames(const struct fk_host *h, struct fk_input *in, struct cr_trace *t)
{
	for (size_t i = 0; i < t->nprofs; i++) {
		struct cr_prof *p = &t->profs[i];
		if (!p->from_sf || !t->nsfv)
			continue;
		if (CR_GROW(h, p->v, p->capv, t->nsfv) < 0) {
			h->input_error(in, 0, "out of memory");
			return FK_ERR_NOMEM;
		}
		memcpy(p->v, t->sfv, t->nsfv * sizeof *p->v);
		p->n = t->nsfv;
	}
	return 0;
}

static int on_end(void *x)
{
	struct rd *r = x;
	unsigned k = r->kind[r->depth];
	int rc = 1;

	if (fk_cpuhead_active(&r->head))
		return fk_cpuhead_close(&r->head);
	if (k == K_NODE)
		rc = end_node(r);
	else if (k == K_EVENT)
		rc = end_event(r);
	else if (k == K_TSAMPLE)
		rc = end_tsample(r);
	else if (k == K_SFRAME)
		rc = end_sframe(r);
	r->depth--;
	/* a bare array of events may end after any whole event */
	r->j.unclosed_ok = r->top_array && r->depth == 1;
	return rc;
}

/* A node of an old-format cpuProfile's tree, as a current node. */
static int head_node(void *x, const struct fk_cpuhead_node *n)
{
	struct rd *r = x;

	begin_node(r);
	r->node_has_id = n->has_id;
	r->node_id = n->id;
	r->node_has_cf = 1; /* its members are the callFrame's */
	r->has_line = n->has_line;
	r->node_line = n->line;
	if ((n->has_fn && !fk_json_str_set(&r->j, &r->fn, (const unsigned char *)n->fn, n->fn_len)) ||
	    (n->has_url && !fk_json_str_set(&r->j, &r->url, (const unsigned char *)n->url, n->url_len)))
		return 0;
	for (size_t i = 0; i < n->nkids; i++)
		if (!push_num(r, &r->kids, &r->nkids, &r->capkids, n->kids[i]))
			return 0;
	return end_node(r);
}

static int head_fail(void *x, const char *msg, int fatal)
{
	struct rd *r = x;

	(void)fatal;
	return fk_json_fail(&r->j, "%s", msg);
}

static const struct fk_cpuhead_ops head_ops = { .node = head_node, .fail = head_fail };

static const struct fk_json_ops ops = {
	.scalar = scalar, .key = on_key, .open = open_container, .close = on_end,
};

int cr_read(const struct fk_host *h, struct fk_input *in, const struct fk_input_limit *lim,
            struct cr_trace *t)
{
	struct rd *r = h->alloc(sizeof *r);
	int rc;

	/* text is never NULL, so that a name of length 0 points somewhere */
	if (!r || CR_GROW(h, t->text, t->tcap, 1) < 0) {
		h->free(r);
		h->input_error(in, 0, "out of memory");
		return FK_ERR_NOMEM;
	}
	memset(r, 0, sizeof *r);
	r->h = h;
	r->in = in;
	r->t = t;
	fk_json_init(&r->j, h, in, "Chrome trace", lim);
	fk_cpuhead_init(&r->head, &r->j, &head_ops, r);
	rc = fk_json_parse(&r->j, &ops, r);
	if (rc == 0)
		rc = give_frames(h, in, t);
	fk_cpuhead_free(&r->head);
	h->free(r->stamps);
	h->free(r->ph.s);
	h->free(r->name.s);
	h->free(r->id.s);
	h->free(r->argname.s);
	h->free(r->fn.s);
	h->free(r->url.s);
	h->free(r->nodes);
	h->free(r->samples);
	h->free(r->deltas);
	h->free(r->kids);
	h->free(r->edges);
	h->free(r);
	return rc;
}

void cr_trace_free(const struct fk_host *h, struct cr_trace *t)
{
	for (size_t i = 0; i < t->nprofs; i++) {
		h->free(t->profs[i].v);
		h->free(t->profs[i].s);
		h->free(t->profs[i].edges);
	}
	for (size_t i = 0; i < t->nthreads; i++)
		h->free(t->threads[i].open);
	h->free(t->profs);
	h->free(t->threads);
	h->free(t->durs);
	h->free(t->sfv);
	h->free(t->text);
}
