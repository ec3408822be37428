/*
 * One segment of perf script text: records, each a header line, its frame
 * lines (leaf first) and an empty line.  A record's frame lines (its body)
 * are read with getline and kept as one block of text; at the record's
 * end the body is looked up by its text: a body seen before gives the hash
 * of its tidied frames without a line parsed, and (comm frame, that hash)
 * gives the stack node: two small lookups and a push_node.  A body never
 * seen is parsed and tidied (frames.c) once and kept; only a stack never
 * seen is pushed frame by frame (the engine interns it).
 *
 * Where the input has a record's body buffered (host->input_peek, ABI
 * 1.4), it is taken at once, in place (body.c), instead of a getline() and
 * a copy per frame line.
 *
 * A body whose lines did not all parse is never kept, so its skipped
 * lines are counted every time it occurs.  The records of the pairing
 * modes (--offcpu, --wakeups, --leak) are parsed every time: their stacks
 * are kept for the record that closes the pair (offcpu.c, leak.c).
 */
#define _GNU_SOURCE /* strptime */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "internal.h"

#define KEPT_BYTES_MAX ((size_t)64 << 20) /* names of kept bodies, per worker */

/* The tidied frames of a body (a record's frame lines), kept in
 * worker.kept: names, modules and frames (offsets relative to the body). */
struct body {
	struct h128 th;      /* tidied hash of the frames */
	size_t tlen;
	uint32_t names_off, names_len, mods_off, mods_len, fr_off, nfr;
};

/* Records: what perf_add_frame made of one frame's lines (an address and
 * its inline frames), kept in worker.fkept, offsets relative to it. */
struct fpiece {
	uint32_t names_off, names_len, mods_off, mods_len, fr_off, nfr;
};

struct worker {
	struct scan_cfg cfg;
	struct cache bodies; /* body text (and the java flag) -> index in bv */
	struct cache stacks; /* comm frame + tidied frames -> node */
	struct body *bv;
	size_t nb, bcap;
	struct stack kept;   /* what bv's entries point into */
	struct stack st;     /* the record's stack: comm frame, then leaf first */
	const char *bodyp;   /* the record's frame lines, each ending in '\n': body,
	                      * or in place in the input's buffer */
	bool body_hashed;    /* body_hash is the body's (taken whole) */
	struct h128 body_hash;
	char *body;          /* frame lines copied one by one */
	size_t body_len, body_cap;
	const struct fk_perf_frame *rf; /* the record's frames, by id (records, not text) */
	size_t nrf;
	const char *plain_comm, *plain_event; /* the last header fields found plain (head_reads_back) */
	size_t plain_comm_len, plain_event_len;
	uint32_t *keyv;      /* (length, annotation) of each frame: the tidied key */
	size_t keycap;
	uint64_t *idv;       /* the record's frame ids, hashed */
	size_t idcap;
	struct cache frames; /* records: a frame's id (and the java flag) -> index in fv */
	struct fpiece *fv;
	size_t nfv, fvcap;
	struct stack fkept;  /* what fv's entries point into */
	struct pusher push;
};

enum rstate { R_IDLE, R_KEEP, R_DROP };

struct record {
	enum rstate st;
	struct fk_sample meta;
	size_t pname_len;    /* st.names[0 .. pname_len) is the comm frame */
	bool java;
	bool single;         /* the header holds the record's one frame (no -g) */
	uint64_t body_line;  /* the number of the line after the header */
	struct pair_rec pair;  /* what a pairing mode read from the header */
};

/* One segment's parse. */
struct seg {
	struct worker *w;
	struct fk_input *in;
	struct seg_result *res;
	const struct kept_event *ev;
	struct kept_event learnt; /* the segment's first event, when ev was NULL */
	struct record r;
	bool whole;          /* bodies may be taken whole (host->input_peek) */
	bool started;        /* a record has just started */
	bool records;        /* records handed in (fk_perf_records_add), not text read */
	uint64_t lineno;     /* records: the line the text would be at */
};

/* The number of the line being scanned. */
static uint64_t seg_line(const struct seg *s)
{
	return s->records ? s->lineno : s->w->cfg.h->input_lineno(s->in);
}

struct worker *perf_worker_new(const struct scan_cfg *cfg)
{
	const struct fk_host *h = cfg->h;
	struct worker *w = h->alloc(sizeof *w);

	if (!w)
		return NULL;
	memset(w, 0, sizeof *w);
	w->cfg = *cfg;
	w->push.h = h;
	if (perf_cache_init(h, &w->bodies) < 0 || perf_cache_init(h, &w->stacks) < 0 ||
	    perf_cache_init(h, &w->frames) < 0) {
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
	perf_cache_free(h, &w->bodies);
	perf_cache_free(h, &w->stacks);
	perf_cache_free(h, &w->frames);
	perf_stack_free(h, &w->fkept);
	h->free(w->fv);
	perf_stack_free(h, &w->st);
	perf_stack_free(h, &w->kept);
	h->free(w->bv);
	h->free(w->body);
	h->free(w->keyv);
	h->free(w->idv);
	h->free(w->push.refs);
	h->free(w);
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

/* Parse the frame lines p[0..len), the first at line `line`, into w->st;
 * *skipped counts the lines that are not frames. */
static int parse_lines(struct seg *s, const char *p, size_t len, uint64_t line, size_t *skipped)
{
	struct worker *w = s->w;
	const struct fk_host *h = w->cfg.h;
	const char *end = len ? p + len : p;
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

/* Parse the body's lines into w->st. */
static int parse_body(struct seg *s, size_t *skipped)
{
	return parse_lines(s, s->w->bodyp, s->w->body_len, s->r.body_line, skipped);
}

static struct h128 id_seed(const struct seg *s);

/* Keep what w->st holds past (names0, mods0, n0): one frame's pieces. */
static int frame_keep(struct worker *w, size_t names0, size_t mods0, size_t n0,
                      struct cache_entry *slot, struct h128 key, size_t klen)
{
	const struct fk_host *h = w->cfg.h;
	const struct stack *st = &w->st;
	struct stack *k = &w->fkept;
	size_t nf = st->n - n0, nn = st->names_len - names0, nm = st->mods_len - mods0;
	struct fpiece *f;

	if (k->names_len > KEPT_BYTES_MAX || w->nfv >= UINT32_MAX - 1)
		return 0;
	if (w->nfv == w->fvcap && perf_grow(h, (void **)&w->fv, &w->fvcap, w->nfv + 1, sizeof *w->fv) < 0)
		return FK_ERR_NOMEM;
	f = &w->fv[w->nfv];
	*f = (struct fpiece){ (uint32_t)k->names_len, (uint32_t)nn, (uint32_t)k->mods_len,
	                      (uint32_t)nm, (uint32_t)k->n, (uint32_t)nf };
	if ((nn && perf_stack_put(h, k, st->names + names0, nn) < 0) ||
	    (nm && perf_grow(h, (void **)&k->mods, &k->mods_cap, k->mods_len + nm, 1) < 0) ||
	    perf_grow(h, (void **)&k->fr, &k->cap, k->n + nf + 1, sizeof *k->fr) < 0)
		return FK_ERR_NOMEM;
	if (nm)
		memcpy(k->mods + k->mods_len, st->mods + mods0, nm);
	k->mods_len += nm;
	for (size_t i = 0; i < nf; i++) {
		struct frame fr = st->fr[n0 + i];
		fr.off -= (uint32_t)names0;
		fr.mod_off -= (uint32_t)mods0;
		k->fr[k->n++] = fr;
	}
	return perf_cache_put(h, &w->frames, slot, key, klen, (fk_node_t)w->nfv++);
}

/* Append a kept frame's pieces to w->st. */
static int frame_restore(struct worker *w, const struct fpiece *f)
{
	const struct fk_host *h = w->cfg.h;
	const struct stack *k = &w->fkept;
	struct stack *st = &w->st;
	uint32_t nbase = (uint32_t)st->names_len, mbase = (uint32_t)st->mods_len;

	if ((f->names_len && perf_stack_put(h, st, k->names + f->names_off, f->names_len) < 0) ||
	    perf_grow(h, (void **)&st->mods, &st->mods_cap, st->mods_len + f->mods_len + 1, 1) < 0 ||
	    perf_grow(h, (void **)&st->fr, &st->cap, st->n + f->nfr + 1, sizeof *st->fr) < 0)
		return FK_ERR_NOMEM;
	if (f->mods_len)
		memcpy(st->mods + st->mods_len, k->mods + f->mods_off, f->mods_len);
	st->mods_len += f->mods_len;
	for (size_t i = 0; i < f->nfr; i++) {
		struct frame fr = k->fr[f->fr_off + i];
		fr.off += nbase;
		fr.mod_off += mbase;
		st->fr[st->n++] = fr;
	}
	return 0;
}

/* Records: the record's frames (w->rf) into w->st, each parsed once per
 * worker (by its id) and kept, unless some of its lines were skipped: then
 * it is parsed, and its skipped lines counted, every time, as in the text. */
static int parse_frames(struct seg *s, size_t *skipped)
{
	struct worker *w = s->w;
	uint64_t line = s->r.body_line;
	int rc;

	*skipped = 0;
	for (size_t i = 0; i < w->nrf; i++) {
		const struct fk_perf_frame *fr = &w->rf[i];
		struct h128 key = perf_hash(id_seed(s), (const char *)&fr->id, sizeof fr->id);
		size_t n0 = w->st.n, names0 = w->st.names_len, mods0 = w->st.mods_len, sk;
		struct cache_entry *slot;
		fk_node_t idx = perf_cache_get(&w->frames, key, sizeof fr->id, &slot);

		if (idx != FK_NODE_NONE)
			rc = frame_restore(w, &w->fv[idx]);
		else if ((rc = parse_lines(s, fr->text, fr->len, line, &sk)) == 0) {
			*skipped += sk;
			if (sk == 0)
				rc = frame_keep(w, names0, mods0, n0, slot, key, sizeof fr->id);
		}
		if (rc < 0)
			return rc;
		line += fr->lines;
	}
	return 0;
}

/* The tidied hash of frames 1 .. n-1 of w->st (the comm frame left out):
 * their names and modules, then each one's length, annotation and module
 * length. */
static int tidied_hash(struct worker *w, size_t from, struct h128 *hv, size_t *len)
{
	const struct stack *st = &w->st;
	size_t nf = st->n - 1, nb = st->names_len - from;

	if (perf_grow(w->cfg.h, (void **)&w->keyv, &w->keycap, 2 * nf + 1, sizeof *w->keyv) < 0)
		return FK_ERR_NOMEM;
	for (size_t i = 0; i < nf; i++) {
		w->keyv[2 * i] = st->fr[i + 1].len << 3 | (uint32_t)st->fr[i + 1].annot;
		w->keyv[2 * i + 1] = st->fr[i + 1].mod_len;
	}
	/* modules too: a stack met again with other modules is pushed, so the
	 * engine sees every module a frame name comes with */
	*hv = perf_hash(perf_hash(perf_hash(perf_hash0(), nb ? st->names + from : "", nb),
	                          st->mods_len ? st->mods : "",
	                          st->mods_len),
	                (const char *)w->keyv, 2 * nf * sizeof *w->keyv);
	*len = nb + st->mods_len + 2 * nf * sizeof *w->keyv;
	return 0;
}

/* Keep the frames parsed from a body (w->st after its comm frame) for
 * records with the same body under another comm. */
static int body_keep(struct worker *w, size_t from, struct h128 th, size_t tlen,
                     struct cache_entry *slot, struct h128 bh, size_t blen)
{
	const struct fk_host *h = w->cfg.h;
	const struct stack *st = &w->st;
	struct stack *k = &w->kept;
	struct body *b;
	size_t nf = st->n - 1;

	if (k->names_len > KEPT_BYTES_MAX || w->nb >= UINT32_MAX - 1)
		return 0;
	if (w->nb == w->bcap && perf_grow(h, (void **)&w->bv, &w->bcap, w->nb + 1, sizeof *w->bv) < 0)
		return FK_ERR_NOMEM;
	b = &w->bv[w->nb];
	b->th = th;
	b->tlen = tlen;
	b->fr_off = k->n;
	b->nfr = nf;
	b->names_off = k->names_len;
	b->mods_off = k->mods_len;
	if ((st->names_len > from && perf_stack_put(h, k, st->names + from, st->names_len - from) < 0) ||
	    (st->mods_len && perf_grow(h, (void **)&k->mods, &k->mods_cap, k->mods_len + st->mods_len, 1) < 0) ||
	    perf_grow(h, (void **)&k->fr, &k->cap, k->n + nf + 1, sizeof *k->fr) < 0)
		return FK_ERR_NOMEM;
	if (st->mods_len)
		memcpy(k->mods + k->mods_len, st->mods, st->mods_len);
	k->mods_len += st->mods_len;
	for (size_t i = 0; i < nf; i++) {
		struct frame f = st->fr[i + 1];
		f.off -= (uint32_t)from;
		k->fr[k->n++] = f;
	}
	b->names_len = k->names_len - b->names_off;
	b->mods_len = k->mods_len - b->mods_off;
	return perf_cache_put(h, &w->bodies, slot, bh, blen, (fk_node_t)w->nb++);
}

/* Rebuild w->st (after its comm frame) from a kept body. */
static int body_restore(struct worker *w, const struct body *b)
{
	const struct fk_host *h = w->cfg.h;
	const struct stack *k = &w->kept;
	struct stack *st = &w->st;
	uint32_t base = (uint32_t)st->names_len;

	if ((b->names_len && perf_stack_put(h, st, k->names + b->names_off, b->names_len) < 0) ||
	    perf_grow(h, (void **)&st->mods, &st->mods_cap, b->mods_len + 1, 1) < 0 ||
	    perf_grow(h, (void **)&st->fr, &st->cap, st->n + b->nfr + 1, sizeof *st->fr) < 0)
		return FK_ERR_NOMEM;
	if (b->mods_len)
		memcpy(st->mods, k->mods + b->mods_off, b->mods_len);
	st->mods_len = b->mods_len;
	for (size_t i = 0; i < b->nfr; i++) {
		struct frame f = k->fr[b->fr_off + i];
		f.off += base; /* mod_off is relative to the body's modules already */
		st->fr[st->n++] = f;
	}
	return 0;
}

/* What a body's hash starts from: java bodies are tidied otherwise. */
static struct h128 body_seed(const struct seg *s)
{
	return (struct h128){ perf_hash0().a ^ s->r.java, perf_hash0().b };
}

/* The same for a body given by its frames' ids (records): another seed, so
 * that ids never meet a text's hash. */
static struct h128 id_seed(const struct seg *s)
{
	return (struct h128){ perf_hash0().a ^ s->r.java ^ 2, ~perf_hash0().b };
}

/*
 * A kept on-CPU record.  Its frame lines (the body) are looked up first:
 * a body seen before gives its tidied frames' hash without a line parsed;
 * then (comm frame, that hash) gives the stack node.  Both tables hold
 * what is distinct (bodies, stacks), not every comm x body, so they stay
 * small and in cache.
 */
static int end_sample(struct seg *s, struct fk_sample *smp)
{
	struct worker *w = s->w;
	const struct fk_host *h = w->cfg.h;
	struct cache_entry *bslot, *sslot;
	struct h128 bh, th, key;
	size_t from = s->r.pname_len, tlen, skipped = 0, blen;
	uint64_t *ids;
	fk_node_t node, idx;
	bool parsed = false;
	int rc;

	if (w->rf) { /* records: the body by its frames' ids, its text only when parsed */
		blen = w->nrf * sizeof *ids;
		if (perf_grow(h, (void **)&w->idv, &w->idcap, w->nrf + 1, sizeof *w->idv) < 0)
			return FK_ERR_NOMEM;
		ids = w->idv;
		for (size_t i = 0; i < w->nrf; i++)
			ids[i] = w->rf[i].id;
		bh = perf_hash(id_seed(s), blen ? (const char *)ids : "", blen);
	} else {
		blen = w->body_len;
		bh = w->body_hashed ? w->body_hash
		                    : perf_hash(body_seed(s), w->body_len ? w->bodyp : "", w->body_len);
	}
	idx = perf_cache_get(&w->bodies, bh, blen, &bslot);
	if (idx == FK_NODE_NONE) {
		if ((rc = w->rf ? parse_frames(s, &skipped) : parse_body(s, &skipped)) < 0 ||
		    (rc = tidied_hash(w, from, &th, &tlen)) < 0)
			return rc;
		/* a body whose lines did not all parse is parsed (and its
		 * skipped lines counted) every time */
		if (skipped == 0 && (rc = body_keep(w, from, th, tlen, bslot, bh, blen)) < 0)
			return rc;
		parsed = true;
	} else {
		th = w->bv[idx].th;
		tlen = w->bv[idx].tlen;
	}
	key = perf_hash(th, w->st.names, from);
	node = perf_cache_get(&w->stacks, key, from + tlen, &sslot);
	smp->comm = w->st.names; /* parsing may have moved it */
	if (node != FK_NODE_NONE)
		return h->push_node(w->push.sink, node, smp);
	if (!parsed && (rc = body_restore(w, &w->bv[idx])) < 0)
		return rc;
	smp->comm = w->st.names;
	if ((rc = perf_push_stack(&w->push, &w->st, smp, &node)) < 0)
		return rc;
	return perf_cache_put(h, &w->stacks, sslot, key, from + tlen, node);
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
		if (!perf_pairing(w->cfg.o))
			rc = end_sample(s, &smp);
		else if ((rc = w->rf ? parse_frames(s, &skipped) : parse_body(s, &skipped)) == 0)
			rc = perf_pair_record(s->res, w->cfg.o, &w->push, &r->pair, &r->meta, &w->st);
	}
	r->st = R_IDLE;
	w->body_len = 0;
	w->bodyp = NULL;
	w->body_hashed = false;
	w->rf = NULL;
	w->nrf = 0;
	return rc;
}

/* A record of an event not kept: counted, per event. */
static bool drop_event(struct seg_result *res, const struct header *hd)
{
	perf_events_note(&res->dropped_ev, hd->event, hd->event_len);
	res->dropped++;
	return false;
}

/* Whether the record with this header is kept (the event test); *series
 * is the series its weight goes to. */
static bool keep_event(struct seg *s, const struct header *hd, int *series)
{
	const struct fk_perf_opts *o = s->w->cfg.o;
	const struct kept_event *two = s->w->cfg.series;
	struct seg_result *res = s->res;

	*series = 0;
	if (two) {
		for (int k = 0; k < 2 && hd->event; k++)
			if (perf_event_matches(hd->event, hd->event_len, two[k].name, two[k].len)) {
				*series = k;
				return true;
			}
		return drop_event(res, hd);
	}
	if (perf_pairing(o))
		return perf_pair_keep(res, o, hd, &s->r.pair);
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
	return drop_event(res, hd);
}

/* A kept record's weight: its period (1 when it has none), or the number
 * in its --weight-field; false (the record skipped and counted) when that
 * field is missing or not a number. */
static bool record_weight(struct seg *s, const struct header *hd, double *w)
{
	const char *f = s->w->cfg.o->weight_field;
	uint64_t v;

	*w = hd->period > 0 ? hd->period : 1;
	if (!f)
		return true;
	switch (perf_field_u64(hd->event, hd->event_len, hd->args, hd->args_len, f, strlen(f), &v)) {
	case PF_OK:
		*w = (double)v;
		return true;
	case PF_MISSING:
		s->res->wf_missing++;
		return false;
	default:
		s->res->wf_bad++;
		return false;
	}
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
	for (char *c = st->names, *e = c + st->names_len; c < e; c++)
		if (is_ws((unsigned char)*c))
			*c = '_';
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

static int body_put(struct worker *w, const char *line, size_t n)
{
	if (w->body_len + n + 1 > w->body_cap &&
	    perf_grow(w->cfg.h, (void **)&w->body, &w->body_cap, w->body_len + n + 1, 1) < 0)
		return FK_ERR_NOMEM;
	if (n)
		memcpy(w->body + w->body_len, line, n);
	w->body[w->body_len + n] = '\n';
	w->body_len += n + 1;
	w->bodyp = w->body;
	return 0;
}

/* Whether a header's text after its event is one frame line
 * ("HEX sym+off (module)"), as perf script prints without a callchain:
 * never a tracepoint's arguments ("block:block_rq_issue: 8,0 WS ..."),
 * whose event names a subsystem, where a hardware or software event has at
 * most perf's modifier letters after a ':' ("cycles:u", "cpu-clock:ppp"). */
static bool single_frame(const struct header *hd)
{
	const char *colon;
	struct fline f;

	if (!hd->args || !hd->event || !perf_match_frame(hd->args, hd->args_len, &f) ||
	    f.pc != hd->args || f.pc_len >= hd->args_len || !is_ws((unsigned char)f.pc[f.pc_len]))
		return false;
	if ((colon = memchr(hd->event, ':', hd->event_len)) != NULL)
		for (const char *c = colon + 1; c < hd->event + hd->event_len; c++)
			if (!strchr("ukhHGpPISDWe", *c))
				return false;
	for (size_t k = 0; k < f.pc_len; k++)
		if (!isxdigit((unsigned char)f.pc[k]))
			return false;
	return true;
}

/* A header line starts a record. */
static int record_started(struct seg *s, struct header *hd);

static void record_begin(struct seg *s, uint64_t lineno)
{
	s->r.body_line = lineno + 1;
	s->r.single = false;
	s->w->body_len = 0;
	s->started = true;
}

static int record_start(struct seg *s, const char *line, size_t n, size_t after,
                        struct header *hd, uint64_t lineno)
{
	struct record *r = &s->r;

	record_begin(s, lineno);
	/* a thread perf could no longer name (":-1 -1", exiting): the
	 * pairing modes need its switch-ins and frees; elsewhere its header
	 * is read as FlameGraph reads it, and a skipped line where FlameGraph
	 * cannot read it, so that plain collapse is FlameGraph's output */
	if (hd->tid == -1 && !perf_pairing(s->w->cfg.o) && !(after = perf_match_exiting(line, n, hd))) {
		s->w->cfg.h->input_skip(s->in, lineno);
		r->st = R_DROP;
		return 0;
	}
	perf_match_event(line, n, after, hd);
	return record_started(s, hd);
}

/* The rest of record_start, with the header's event, time and period
 * read. */
static int record_started(struct seg *s, struct header *hd)
{
	struct record *r = &s->r;
	double weight;
	int series, rc;

	r->single = single_frame(hd);
	if (!keep_event(s, hd, &series) || !record_weight(s, hd, &weight)) {
		r->st = R_DROP;
		return 0;
	}
	r->st = R_KEEP;
	memset(&r->meta, 0, sizeof r->meta);
	r->meta.weight[series] = weight;
	if (!s->res->unit_kind[series])
		s->res->unit_kind[series] = hd->period > 0 ? 2 : 1;
	r->meta.flags = FK_SAMPLE_TID | FK_SAMPLE_COMM;
	if (s->w->cfg.series)
		r->meta.flags |= FK_SAMPLE_SERIES;
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
	if ((rc = comm_frame(s, hd)) < 0 || !r->single)
		return rc;
	/* perf script without -g prints each sample's frame after its event
	 * ("cycles:  7fa68b1f2d84 _dl_start+0x4 (/usr/lib/ld-2.31.so)"), the
	 * next header on the next line: the frame is the record's body, and
	 * no body follows to be taken whole */
	s->started = false;
	return body_put(s->w, hd->args, hd->args_len);
}

/* perf script --header's "# captured on    : Wed Dec  2 01:36:12 2026":
 * the capture's time as perf report --header-only prints it (ctime(3), in
 * local time, of when perf record last wrote perf.data), given to the
 * sink for outputs that write a wall-clock time (pprof's time_nanos). */
static void captured_on(struct seg *s, const char *line, size_t n)
{
	static const char key[] = "# captured on";
	const struct fk_host *h = s->w->cfg.h;
	const char *c;
	char buf[64];
	struct tm tm;
	time_t t;
	size_t k;

	if (n < sizeof key - 1 || memcmp(line, key, sizeof key - 1) != 0 ||
	    !FK_HOST_HAS(h, sink_set_start_time) || !(c = memchr(line, ':', n)))
		return;
	for (c++; c < line + n && *c == ' '; c++)
		;
	k = (size_t)(line + n - c);
	if (k >= sizeof buf)
		return;
	memcpy(buf, c, k);
	buf[k] = '\0';
	memset(&tm, 0, sizeof tm);
	tm.tm_isdst = -1;
	c = strptime(buf, "%a %b %e %H:%M:%S %Y", &tm);
	if (!c || (*c && *c != '\r') || (t = mktime(&tm)) == (time_t)-1)
		return;
	if (t < 0 || t > (time_t)(INT64_MAX / 1000000000)) /* before 1970, or past 2262: no capture's */
		return;
	h->sink_set_start_time(s->w->push.sink, (int64_t)t * 1000000000);
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
		/* inside a record, only an unindented line can be a header;
		 * after a one-line record, the next line is one, padded or not */
		if (r->single) {
			while (n && is_ws((unsigned char)*line))
				line++, n--;
			if (n == 0)
				return 0;
		}
		if (line[0] == '#' || is_ws((unsigned char)line[0]) ||
		    !(after = perf_match_header(line, n, &hd)))
			return r->st == R_KEEP ? body_put(s->w, line, n) :
			       memchr(line, '\0', n) ? binary_error(s, seg_line(s)) : 0;
		if ((rc = record_end(s)) < 0)
			return rc;
	} else {
		if (line[0] == '#') {
			captured_on(s, line, n);
			return 0;
		}
		/* the first line of a record is its header, even when perf
		 * padded the comm with leading blanks */
		while (n && is_ws((unsigned char)*line))
			line++, n--;
		if (n == 0)
			return 0;
		if (!(after = perf_match_header(line, n, &hd))) {
			if (memchr(line, '\0', n))
				return binary_error(s, seg_line(s));
			h->input_skip(s->in, seg_line(s));
			return 0;
		}
	}
	if (memchr(line, '\0', n))
		return binary_error(s, seg_line(s));
	return record_start(s, line, n, after, &hd, seg_line(s));
}

/* A record just started: when the input has its body buffered, ending in
 * an empty line, and nothing in it that the line-by-line path treats
 * otherwise (body.c), the body and the empty line are consumed at once
 * and the record ended with the body in place.  Returns 0 either way (the
 * line path goes on when the body was not taken), or a negative status. */
static int whole_body(struct seg *s)
{
	const struct fk_host *h = s->w->cfg.h;
	/* the hash is end_sample's cache key: not for a record dropped, nor
	 * for the pairing modes, which parse every body */
	bool hashed = s->r.st == R_KEEP && !perf_pairing(s->w->cfg.o);
	const char *p;
	size_t n, len, lines;

	s->started = false;
	if (h->input_peek(s->in, &p, &n) < 0 || n == 0 ||
	    (len = perf_body_scan(p, n, body_seed(s), &lines, hashed ? &s->w->body_hash : NULL)) ==
	        SIZE_MAX)
		return 0;
	/* consumed first, as the line path reads the empty line before it
	 * ends the record; the bytes stay put until the next getline */
	if (h->input_consume(s->in, len + 1, (uint64_t)lines + 1) < 0)
		return 0;
	s->w->bodyp = p;
	s->w->body_len = len;
	s->w->body_hashed = hashed;
	return record_end(s);
}

/* One line of the text (without its '\n'), as read. */
static int feed_line(struct seg *s, const char *line, size_t n)
{
	const struct fk_host *h = s->w->cfg.h;
	int rc;

	s->started = false; /* whether this line started a record */
	if (n == 0)
		return s->r.st == R_IDLE ? 0 : record_end(s);
	if (s->r.st == R_KEEP && !s->r.single && (line[0] == '\t' || line[0] == ' '))
		return body_put(s->w, line, n); /* the common case first */
	if (seg_line(s) == 1 && n >= 8 && memcmp(line, "PERFILE2", 8) == 0 &&
	    fk_perf_input_start(h, s->in) == 0)
		return h->input_error(s->in, 0, "this is a perf.data file, not perf script "
		                      "text; read it with --format perf-data (or no "
		                      "--format), or convert it with `perf script -i FILE`");
	rc = scan_line(s, line, n);
	if (rc == 0 && s->started && s->whole)
		rc = whole_body(s);
	return rc;
}

static void seg_init(struct seg *s, struct worker *w, struct fk_input *in, struct fk_sink *sink,
                     const struct kept_event *ev, struct seg_result *res)
{
	memset(s, 0, sizeof *s);
	s->w = w;
	s->in = in;
	s->res = res;
	s->ev = ev;
	res->event = ev;
	w->push.sink = sink;
	w->body_len = 0;
}

/* The end of the segment, after its last line: rc is the last line's. */
static int seg_finish(struct seg *s, int rc)
{
	const struct fk_host *h = s->w->cfg.h;
	struct seg_result *res = s->res;

	if (rc == 0)
		rc = record_end(s);
	if (rc < 0)
		return rc == FK_ERR_DATA ? rc : seg_error(s, seg_line(s), rc);
	if (res->event == &s->learnt) {
		/* the caller keeps the result beyond this call */
		struct kept_event *copy = h->alloc(sizeof *copy);
		if (!copy)
			return seg_error(s, 0, FK_ERR_NOMEM);
		*copy = s->learnt;
		res->event = copy;
		res->event_owned = true;
	}
	return 0;
}

int perf_scan(struct worker *w, struct fk_input *in, struct fk_sink *sink,
              const struct kept_event *ev, struct seg_result *res)
{
	const struct fk_host *h = w->cfg.h;
	struct seg s;
	const char *line;
	size_t n;
	int r, rc = 0;

	seg_init(&s, w, in, sink, ev, res);
	s.whole = FK_HOST_HAS(h, input_peek);
	while ((r = h->getline(in, &line, &n)) > 0)
		if ((rc = feed_line(&s, line, n)) < 0)
			break;
	if (r < 0)
		return r;
	return seg_finish(&s, rc);
}

/* ---- records handed in (perf-data's native reader) ---- */

struct fk_perf_records {
	struct seg s;
};

struct fk_perf_records *perf_records_begin(struct worker *w, struct fk_input *in,
                                        struct fk_sink *sink, const struct kept_event *ev,
                                        struct seg_result *res)
{
	struct fk_perf_records *r = w->cfg.h->alloc(sizeof *r);

	if (!r)
		return NULL;
	seg_init(&r->s, w, in, sink, ev, res);
	r->s.records = true;
	return r;
}

/* The lines of text[0..len), each ending in '\n' (a last one without),
 * fed one by one. */
static int feed_text(struct seg *s, const char *text, size_t len)
{
	const char *end = text + len;
	int rc = 0;

	while (text < end && rc == 0) {
		const char *nl = memchr(text, '\n', (size_t)(end - text));
		size_t n = nl ? (size_t)(nl - text) : (size_t)(end - text);
		s->lineno++;
		rc = feed_line(s, text, n);
		text += n + (nl != NULL);
	}
	return rc;
}

static bool plain_token(const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (is_ws((unsigned char)p[i]) || p[i] == '\0')
			return false;
	return true;
}

/* Whether the header line of a callchain's record, whose fields are f,
 * reads back as f: perf_match_header's first candidate comm (at least two
 * bytes, none blank, not a '#' line) and match_usual's layout (a time in
 * range, a period of at most 18 digits or none before an event not
 * starting with a digit, an event without blanks, no arguments). */
bool fk_perf_records_head_ok(struct fk_perf_records *r, const struct fk_perf_head *f)
{
	struct worker *w = r->s.w;

	/* a thread's comm and an event's name stay put while they are the
	 * same: the last ones found plain are not scanned again */
	if (f->comm != w->plain_comm || f->comm_len != w->plain_comm_len) {
		if (f->comm_len < 2 || f->comm[0] == '#' || !plain_token(f->comm, f->comm_len))
			return false;
		w->plain_comm = f->comm;
		w->plain_comm_len = f->comm_len;
	}
	if (f->event != w->plain_event || f->event_len != w->plain_event_len) {
		if (f->event_len < 1 || !plain_token(f->event, f->event_len))
			return false;
		w->plain_event = f->event;
		w->plain_event_len = f->event_len;
	}
	return f->tid >= 0 && f->pid >= -1 && f->has_time && f->time_ns >= 0 &&
	       f->time_ns / 1000000000 <= PERF_SEC_MAX &&
	       (f->has_period ? f->period < 1000000000000000000ull
	                      : !is_digit((unsigned char)f->event[0]));
}

/* A header line as feed_line takes it, its fields given (f). */
static int feed_head(struct seg *s, const struct fk_perf_head *f)
{
	struct header hd = { .comm = f->comm, .comm_len = f->comm_len, .pid = f->pid, .tid = f->tid,
		             .event = f->event, .event_len = f->event_len,
		             .period = f->has_period ? (double)f->period : 0, .has_time = true,
		             .time_ns = f->time_ns };
	int rc;

	s->started = false;
	s->lineno++;
	if (s->r.st != R_IDLE && (rc = record_end(s)) < 0)
		return rc;
	record_begin(s, seg_line(s));
	return record_started(s, &hd);
}

int fk_perf_records_add(struct fk_perf_records *r, const struct fk_perf_rec *rec)
{
	struct seg *s = &r->s;
	struct worker *w = s->w;
	int rc;

	if (rec->head && rec->chain)
		rc = feed_head(s, rec->head);
	else
		rc = feed_text(s, rec->text, rec->len);
	if (rc < 0)
		goto fail;
	if (!rec->chain)
		return 0;
	if (s->started && s->r.st == R_KEEP && !s->r.single) {
		/* the record's body, its frames by id: as whole_body takes
		 * it, then the empty line that ends the record */
		uint64_t lines = 0;
		for (size_t i = 0; i < rec->nframes; i++)
			lines += rec->frames[i].lines;
		s->started = false;
		s->lineno += lines + 1;
		w->rf = rec->frames;
		w->nrf = rec->nframes;
		w->body_len = 0;
		if ((rc = record_end(s)) < 0)
			goto fail;
		return 0;
	}
	/* anything else, line by line, as the text would be read */
	for (size_t i = 0; i < rec->nframes; i++)
		if ((rc = feed_text(s, rec->frames[i].text, rec->frames[i].len)) < 0)
			goto fail;
	s->lineno++;
	if ((rc = feed_line(s, "", 0)) < 0)
		goto fail;
	return 0;
fail:
	return rc == FK_ERR_DATA ? rc : seg_error(s, seg_line(s), rc);
}

int fk_perf_records_end(struct fk_perf_records *r)
{
	int rc = seg_finish(&r->s, 0);

	r->s.w->cfg.h->free(r);
	return rc;
}
