/*
 * One segment of perf script text: records, each a header line, its frame
 * lines (leaf first) and an empty line.  A record's frame lines are read
 * with getline and kept as one block of text; at the record's end:
 *
 *   - the raw cache, keyed by the comm frame and that block, gives the
 *     stack node a record with the same text gave before: one hash and a
 *     push_node, no line parsed, no frame hashed again;
 *   - otherwise the lines are parsed and tidied (frames.c), and the tidied
 *     cache, keyed by the tidied names, catches records whose text differs
 *     but whose stack does not (other leaf offsets); only a stack never
 *     seen is pushed frame by frame (the engine interns it).
 *
 * A record whose lines did not all parse is never cached from its text,
 * so its skipped lines are counted every time it occurs.
 */
#include <stdio.h>

#include "internal.h"

struct worker {
	struct scan_cfg cfg;
	struct cache raw, tidied;
	struct stack st;     /* the record's stack: comm frame, then leaf first */
	char *body;          /* the record's frame lines, each ending in '\n' */
	size_t body_len, body_cap;
	uint32_t *keyv;      /* (length, annotation) of each frame: the tidied key */
	size_t keycap;
	struct pusher push;
};

enum rstate { R_IDLE, R_KEEP, R_DROP };

struct record {
	enum rstate st;
	struct fk_sample meta;
	size_t pname_len;    /* st.names[0 .. pname_len) is the comm frame */
	bool java;
	uint64_t body_line;  /* the number of the line after the header */
	bool is_switch;
	long long prev_pid, next_pid;
};

/* One segment's parse. */
struct seg {
	struct worker *w;
	struct fk_input *in;
	struct seg_result *res;
	const struct kept_event *ev;
	struct kept_event learnt; /* the segment's first event, when ev was NULL */
	struct record r;
};

struct worker *perf_worker_new(const struct scan_cfg *cfg)
{
	const struct fk_host *h = cfg->h;
	struct worker *w = h->alloc(sizeof *w);

	if (!w)
		return NULL;
	memset(w, 0, sizeof *w);
	w->cfg = *cfg;
	w->push.h = h;
	if (perf_cache_init(h, &w->raw) < 0 || perf_cache_init(h, &w->tidied) < 0) {
		perf_worker_free(w);
		return NULL;
	}
	return w;
}

void perf_worker_free(struct worker *w)
{
	const struct fk_host *h;

	if (!w)
		return;
	h = w->cfg.h;
	perf_cache_free(h, &w->raw);
	perf_cache_free(h, &w->tidied);
	perf_stack_free(h, &w->st);
	h->free(w->body);
	h->free(w->keyv);
	h->free(w->push.refs);
	h->free(w);
}

int perf_push_stack(struct pusher *p, const struct stack *st, struct fk_sample *smp, fk_node_t *node)
{
	size_t k = 0;
	int rc;

	if (perf_grow(p->h, (void **)&p->refs, &p->refcap, st->n + 1, sizeof *p->refs) < 0)
		return FK_ERR_NOMEM;
	/* root first: the comm frame, then from the outermost caller */
	for (size_t i = 0; i < st->n; i++) {
		const struct frame *f = &st->fr[i == 0 ? 0 : st->n - i];
		struct fk_frameref *r = &p->refs[k++];
		r->name = st->names + f->off;
		r->len = f->len;
		r->annot = f->annot;
		r->module = f->mod_len ? st->mods + f->mod_off : NULL;
		r->module_len = f->mod_len;
	}
	smp->frames = p->refs;
	smp->nframes = k;
	rc = p->h->push(p->sink, smp, node);
	smp->frames = NULL;
	smp->nframes = 0;
	return rc;
}

static int seg_error(struct seg *s, uint64_t line, int rc)
{
	const struct fk_host *h = s->w->cfg.h;
	if (rc == FK_ERR_NOMEM) {
		h->input_error(s->in, line, "out of memory");
		return rc;
	}
	if (rc == FK_ERR_DATA)
		return rc; /* reported where it was found */
	h->input_error(s->in, line, "could not add a sample");
	return rc;
}

static int binary_error(struct seg *s, uint64_t line)
{
	return s->w->cfg.h->input_error(s->in, line, "binary data (a NUL byte) in perf script text; "
	                                "give the text that `perf script` prints, not a perf.data file");
}

/* Parse the body's lines into w->st; *skipped counts the lines that are
 * not frames. */
static int parse_body(struct seg *s, size_t *skipped)
{
	struct worker *w = s->w;
	const struct fk_host *h = w->cfg.h;
	const char *p = w->body, *end = w->body + w->body_len;
	uint64_t line = s->r.body_line;
	int rc;

	*skipped = 0;
	for (; p < end; line++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = (size_t)(nl - p);
		struct fline f;
		if (p[0] == '#') {
			/* perf's comments */
		} else if (memchr(p, '\0', n)) {
			return binary_error(s, line);
		} else if (perf_match_frame(p, n, &f)) {
			if ((rc = perf_add_frame(&w->cfg.tidy, &w->st, &f, s->r.java)) < 0)
				return rc;
		} else {
			h->input_skip(s->in, line);
			(*skipped)++;
		}
		p = nl + 1;
	}
	return 0;
}

/* The tidied key: the names, then each frame's length and annotation. */
static int tidied_hash(struct worker *w, struct h128 *hv, size_t *len)
{
	const struct stack *st = &w->st;
	if (perf_grow(w->cfg.h, (void **)&w->keyv, &w->keycap, st->n + 1, sizeof *w->keyv) < 0)
		return FK_ERR_NOMEM;
	for (size_t i = 0; i < st->n; i++)
		w->keyv[i] = st->fr[i].len << 3 | (uint32_t)st->fr[i].annot;
	*hv = perf_hash(perf_hash(perf_hash0(), st->names, st->names_len), (const char *)w->keyv,
	                st->n * sizeof *w->keyv);
	*len = st->names_len + st->n * sizeof *w->keyv;
	return 0;
}

/* A kept on-CPU record: repeat its stack from a cache, or parse it. */
static int end_sample(struct seg *s, struct fk_sample *smp)
{
	struct worker *w = s->w;
	const struct fk_host *h = w->cfg.h;
	struct cache_entry *rslot, *tslot;
	struct h128 rh, th;
	size_t rlen = s->r.pname_len + w->body_len, tlen, skipped;
	fk_node_t node;
	int rc;

	rh = perf_hash(perf_hash(perf_hash0(), w->st.names, s->r.pname_len), w->body, w->body_len);
	node = perf_cache_get(&w->raw, rh, rlen, &rslot);
	if (node != FK_NODE_NONE)
		return h->push_node(w->push.sink, node, smp);
	if ((rc = parse_body(s, &skipped)) < 0 || (rc = tidied_hash(w, &th, &tlen)) < 0)
		return rc;
	node = perf_cache_get(&w->tidied, th, tlen, &tslot);
	if (node != FK_NODE_NONE) {
		rc = h->push_node(w->push.sink, node, smp);
	} else {
		rc = perf_push_stack(&w->push, &w->st, smp, &node);
		if (rc == 0)
			rc = perf_cache_put(h, &w->tidied, tslot, th, tlen, node);
	}
	/* the tidied put may have grown its table, never the raw one */
	if (rc == 0 && skipped == 0)
		rc = perf_cache_put(h, &w->raw, rslot, rh, rlen, node);
	return rc;
}

static int record_end(struct seg *s)
{
	struct record *r = &s->r;
	struct worker *w = s->w;
	struct fk_sample smp;
	size_t skipped;
	int rc = 0;

	if (r->st == R_KEEP) {
		smp = r->meta;
		smp.comm = w->st.names;
		if (!w->cfg.o->offcpu) {
			rc = end_sample(s, &smp);
		} else if (r->meta.flags & FK_SAMPLE_TIME) {
			rc = parse_body(s, &skipped);
			if (rc == 0)
				rc = perf_offcpu_switch(s->res->off, &w->push, r->next_pid, r->prev_pid,
				                        &r->meta, &w->st);
		} else {
			rc = parse_body(s, &skipped);
		}
	}
	r->st = R_IDLE;
	w->body_len = 0;
	return rc;
}

/* Whether the record with this header is kept (the event test). */
static bool keep_event(struct seg *s, const struct header *hd)
{
	const struct fk_perf_opts *o = s->w->cfg.o;
	struct seg_result *res = s->res;

	if (o->offcpu) {
		if (hd->event && perf_memmem(hd->event, hd->event_len, "sched_switch", 12))
			return true;
		perf_offcpu_note_other(res->off);
		return false;
	}
	if (!hd->event)
		return true;
	if (!s->ev) {
		/* the first event type of the input decides, unless chosen */
		size_t n = hd->event_len < sizeof s->learnt.name ? hd->event_len : 0;
		if (n == 0)
			return true;
		memcpy(s->learnt.name, hd->event, n);
		s->learnt.len = n;
		s->learnt.defaulted = true;
		s->ev = &s->learnt;
		res->event = &s->learnt;
	}
	if (perf_event_matches(hd->event, hd->event_len, s->ev->name, s->ev->len))
		return true;
	if (!res->dropped_ev[0])
		snprintf(res->dropped_ev, sizeof res->dropped_ev, "%.*s",
		         (int)(hd->event_len > 100 ? 100 : hd->event_len), hd->event);
	res->dropped++;
	return false;
}

/* The comm frame: spaces become '_', with -PID or -PID/TID. */
static int comm_frame(struct seg *s, const struct header *hd)
{
	const struct fk_perf_opts *o = s->w->cfg.o;
	struct stack *st = &s->w->st;
	char num[64];
	int k = 0;

	st->names_len = st->mods_len = 0;
	st->n = 0;
	if (perf_stack_put(s->w->cfg.h, st, hd->comm, hd->comm_len) < 0)
		return FK_ERR_NOMEM;
	for (size_t i = 0; i < st->names_len; i++)
		if (is_ws((unsigned char)st->names[i]))
			st->names[i] = '_';
	if (o->tid)
		k = hd->pid >= 0 ? snprintf(num, sizeof num, "-%lld/%lld", hd->pid, hd->tid)
		                 : snprintf(num, sizeof num, "-?/%lld", hd->tid);
	else if (o->pid)
		k = hd->pid >= 0 ? snprintf(num, sizeof num, "-%lld", hd->pid) : snprintf(num, sizeof num, "-?");
	if (k > 0 && perf_stack_put(s->w->cfg.h, st, num, (size_t)k) < 0)
		return FK_ERR_NOMEM;
	s->r.pname_len = st->names_len;
	return perf_stack_frame(s->w->cfg.h, st, 0, st->names_len, FK_ANNOT_NONE);
}

/* A header line starts a record. */
static int record_start(struct seg *s, const char *line, size_t n, size_t after,
                        struct header *hd, uint64_t lineno)
{
	struct record *r = &s->r;
	const struct fk_perf_opts *o = s->w->cfg.o;

	perf_match_event(line, n, after, hd);
	r->body_line = lineno + 1;
	s->w->body_len = 0;
	if (!keep_event(s, hd)) {
		r->st = R_DROP;
		return 0;
	}
	r->prev_pid = r->next_pid = -1;
	r->is_switch = o->offcpu;
	if (o->offcpu && hd->args) {
		if (!perf_arg_ll(hd->args, hd->args_len, "prev_pid=", &r->prev_pid))
			r->prev_pid = -1;
		if (!perf_arg_ll(hd->args, hd->args_len, "next_pid=", &r->next_pid))
			r->next_pid = -1;
	}
	r->st = R_KEEP;
	memset(&r->meta, 0, sizeof r->meta);
	r->meta.weight[0] = hd->period > 0 ? hd->period : 1;
	if (!s->res->unit_kind)
		s->res->unit_kind = hd->period > 0 ? 2 : 1;
	r->meta.flags = FK_SAMPLE_TID | FK_SAMPLE_COMM;
	r->meta.tid = (int32_t)hd->tid;
	if (hd->pid >= 0) {
		r->meta.flags |= FK_SAMPLE_PID;
		r->meta.pid = (int32_t)hd->pid;
	}
	if (hd->has_time) {
		r->meta.flags |= FK_SAMPLE_TIME;
		r->meta.time_ns = hd->time_ns;
	}
	r->meta.comm_len = hd->comm_len;
	r->java = hd->comm_len >= 4 && memcmp(hd->comm, "java", 4) == 0;
	return comm_frame(s, hd);
}

static int body_put(struct worker *w, const char *line, size_t n)
{
	if (w->body_len + n + 1 > w->body_cap &&
	    perf_grow(w->cfg.h, (void **)&w->body, &w->body_cap, w->body_len + n + 1, 1) < 0)
		return FK_ERR_NOMEM;
	memcpy(w->body + w->body_len, line, n);
	w->body[w->body_len + n] = '\n';
	w->body_len += n + 1;
	return 0;
}

/* One non-empty line. */
static int scan_line(struct seg *s, const char *line, size_t n)
{
	const struct fk_host *h = s->w->cfg.h;
	struct record *r = &s->r;
	struct header hd;
	size_t after;
	int rc;

	if (r->st != R_IDLE) {
		/* inside a record, only an unindented line can be a header */
		if (line[0] == '#' || is_ws((unsigned char)line[0]) ||
		    !(after = perf_match_header(line, n, &hd)))
			return r->st == R_KEEP ? body_put(s->w, line, n) :
			       memchr(line, '\0', n) ? binary_error(s, h->input_lineno(s->in)) : 0;
		if ((rc = record_end(s)) < 0)
			return rc;
	} else {
		if (line[0] == '#')
			return 0;
		/* the first line of a record is its header, even when perf
		 * padded the comm with leading blanks */
		while (n && is_ws((unsigned char)*line))
			line++, n--;
		if (n == 0)
			return 0;
		if (!(after = perf_match_header(line, n, &hd))) {
			if (memchr(line, '\0', n))
				return binary_error(s, h->input_lineno(s->in));
			h->input_skip(s->in, h->input_lineno(s->in));
			return 0;
		}
	}
	if (memchr(line, '\0', n))
		return binary_error(s, h->input_lineno(s->in));
	return record_start(s, line, n, after, &hd, h->input_lineno(s->in));
}

int perf_scan(struct worker *w, struct fk_input *in, struct fk_sink *sink,
              const struct kept_event *ev, struct seg_result *res)
{
	const struct fk_host *h = w->cfg.h;
	struct seg s;
	const char *line;
	size_t n;
	int r, rc = 0;

	memset(&s, 0, sizeof s);
	s.w = w;
	s.in = in;
	s.res = res;
	s.ev = ev;
	res->event = ev;
	w->push.sink = sink;
	w->body_len = 0;
	while ((r = h->getline(in, &line, &n)) > 0) {
		if (n == 0) {
			rc = s.r.st == R_IDLE ? 0 : record_end(&s);
		} else if (s.r.st == R_KEEP && (line[0] == '\t' || line[0] == ' ')) {
			rc = body_put(w, line, n); /* the common case first */
		} else {
			if (h->input_lineno(in) == 1 && n >= 8 && memcmp(line, "PERFILE2", 8) == 0 &&
			    h->input_start(in) == 0)
				return h->input_error(in, 0, "this is a perf.data file, not perf script "
				                      "text; convert it with `perf script -i FILE`");
			rc = scan_line(&s, line, n);
		}
		if (rc < 0)
			break;
	}
	if (r < 0)
		return r;
	if (rc == 0)
		rc = record_end(&s);
	if (rc < 0)
		return seg_error(&s, h->input_lineno(in), rc);
	if (res->event == &s.learnt) {
		/* the caller keeps the result beyond this call */
		struct kept_event *copy = h->alloc(sizeof *copy);
		if (!copy)
			return seg_error(&s, 0, FK_ERR_NOMEM);
		*copy = s.learnt;
		res->event = copy;
		res->event_owned = true;
	}
	return 0;
}
