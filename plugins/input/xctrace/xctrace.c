/*
 * Input plugin "xctrace": the XML that Instruments' `xctrace export` writes
 * of the Time Profiler's table,
 *
 *     xctrace export --input X.trace --xpath \
 *         '/trace-toc/run[@number="1"]/data/table[@schema="time-profile"]'
 *
 *     <trace-query-result><node xpath="..."><schema name="time-profile">...</schema>
 *       <row><sample-time id="1" fmt="00:00.300.613">300613208</sample-time>
 *         <thread id="2" fmt="Main Thread 0x12aa (App, pid: 581)"><tid id="3">4778</tid>
 *           <process id="4" fmt="App (581)"><pid id="5">581</pid></process></thread>
 *         <process ref="4"/><core .../><thread-state id="7" fmt="Running">Running</thread-state>
 *         <weight id="8" fmt="1.00 ms">1000000</weight>
 *         <backtrace id="9"><frame id="10" name="leaf" addr="0x1">
 *           <binary id="11" name="libsystem_kernel.dylib" .../></frame>
 *           <frame ref="12"/>...</backtrace></row>
 *       <row>...<thread ref="2"/>...<backtrace ref="9"/></row>...
 *
 * Any element may be <X ref="ID"/>, the earlier <X id="ID"> again (a ref
 * to an id not yet seen, or to an element of another name, is an error);
 * <sentinel/> stands for an empty column.  Xcode 26 and later write the
 * stack as <tagged-backtrace>, holding a <backtrace> or the frames
 * themselves.  Frames come leaf first and are pushed root first, each
 * named by its name attribute (its addr when it has none), its binary's
 * name as its module.  A row weighs its weight (ns, the sample's
 * duration); the CPU Profiler's table (schema cpu-profile) is read too,
 * each row weighing its cycle-weight (cycles); --sample-type samples
 * counts each row once.  A node of another schema (os-signpost, ...) is
 * passed over; a file without a table of samples is an error.  A row's
 * thread's fmt becomes the sample's thread name, the tid and pid its ids,
 * sample-time its time and the thread-state's fmt the attribute "state";
 * --thread-root puts the thread's name at the root of each stack.  A row
 * without a backtrace (a sentinel, or one without a frame) or, weighed by
 * its weight, without one is skipped and counted.
 *
 * The XML is read by libxml2's streaming xmlTextReader (libxml2-dev), never
 * as a tree: memory grows with the elements that carry an id (what later
 * rows may refer to: frames, threads, backtraces, and each row's
 * sample-time, some 40 bytes a row), not with the text of the rows.
 * The reader loads nothing from the network (XML_PARSE_NONET), no DTD and
 * substitutes no entity; a document with a DOCTYPE is refused before any
 * element is read, as xctrace never writes one.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>

#include "xctrace.h"
#include "../common/stack.h"
#include "../common/time.h"

static const struct fk_option options[] = {
	FK_OPTION(FK_OPT_STRING, "sample-type", "weight", struct opts, sample_type,
	          "weight: weigh each row by its weight (a time-profile's ns, a cpu-profile's cycles); "
	          "samples: count each row once"),
	FK_OPTION(FK_OPT_FLAG, "thread-root", "0", struct opts, thread_root,
	          "put the thread's name (its fmt, as Instruments shows it) at the root of each stack"),
	FK_OPTION(FK_OPT_STRING, "max-input-size", "auto", struct opts, max_input_size, FK_LIMIT_HELP),
	FK_OPTION_END,
};

/* Which kinds each kind holds (bit k: kind k). */
static const unsigned holds[N_KINDS] = {
	[K_THREAD] = 1u << K_TID | 1u << K_PROCESS,
	[K_PROCESS] = 1u << K_PID,
	[K_BT] = 1u << K_FRAME,
	[K_TAGGED] = 1u << K_BT | 1u << K_FRAME,
	[K_FRAME] = 1u << K_BINARY,
};
#define ROW_HOLDS (1u << K_TIME | 1u << K_THREAD | 1u << K_PROCESS | 1u << K_STATE | 1u << K_WEIGHT | \
                   1u << K_CYCLES | 1u << K_BT | 1u << K_TAGGED)
/* the kinds whose value is their text: a number, or the state's name */
#define NUMERIC (1u << K_TIME | 1u << K_TID | 1u << K_PID | 1u << K_WEIGHT | 1u << K_CYCLES)

/* --- the entries and their ids --------------------------------------------- */

static uint32_t *hash_of(struct cx *c, uint64_t id);

/* Ids are looked up in a table indexed by id (xctrace numbers the
 * elements 1, 2, 3, ... in document order, so lookups of recent ids stay
 * in cache) when the id is at most the number of bytes read when it was
 * given, so that table holds at most 8 bytes a byte of input; a larger id
 * (never xctrace's) goes to a hash table. */
static uint32_t *slot_of(struct cx *c, uint64_t id)
{
	if (id < c->dcap && c->dense[id] != NONE)
		return &c->dense[id];
	if (!c->tabcap)
		return NULL;
	return hash_of(c, id);
}

static uint32_t *hash_of(struct cx *c, uint64_t id)
{
	size_t m = c->tabcap - 1, i = (size_t)((id * 0x9e3779b97f4a7c15ull) >> 20) & m;

	while (c->tab[i].id && c->tab[i].id != id)
		i = (i + 1) & m;
	if (!c->tab[i].id)
		return NULL;
	return &c->tab[i].ent;
}

/* Into the hash table, which has room. */
static void hash_add(struct cx *c, uint64_t id, uint32_t ent)
{
	size_t m = c->tabcap - 1, i = (size_t)((id * 0x9e3779b97f4a7c15ull) >> 20) & m;

	while (c->tab[i].id)
		i = (i + 1) & m;
	c->tab[i].id = id;
	c->tab[i].ent = ent;
	c->tabn++;
}

static int tab_put(struct cx *c, uint64_t id, uint32_t ent)
{
	if (id <= c->bytes) {
		if (id >= c->dcap) {
			size_t old = c->dcap;
			if (fk_vector_grow((void **)&c->dense, &c->dcap, (size_t)id + 1, sizeof *c->dense,
			                   c->h->realloc) < 0)
				return FK_ERR_NOMEM;
			for (size_t k = old; k < c->dcap; k++)
				c->dense[k] = NONE;
		}
		c->dense[id] = ent;
		return 0;
	}
	if (2 * (c->tabn + 1) > c->tabcap) {
		size_t cap = c->tabcap ? c->tabcap * 2 : 1024, oldcap = c->tabcap;
		struct slot *old = c->tab, *t = c->h->alloc(cap * sizeof *t);
		if (!t)
			return FK_ERR_NOMEM;
		memset(t, 0, cap * sizeof *t);
		c->tab = t;
		c->tabcap = cap;
		c->tabn = 0;
		for (size_t k = 0; k < oldcap; k++)
			if (old[k].id)
				hash_add(c, old[k].id, old[k].ent);
		c->h->free(old);
	}
	hash_add(c, id, ent);
	return 0;
}

static int new_ent(struct cx *c, int kind, uint32_t *idx)
{
	struct ent *e;

	if (c->ne >= NONE - 1)
		return xc_fail(c, "more than %u elements with ids", NONE - 1);
	if (fk_vector_grow((void **)&c->e, &c->cape, c->ne + 1, sizeof *c->e, c->h->realloc) < 0)
		return FK_ERR_NOMEM;
	e = &c->e[c->ne];
	memset(e, 0, sizeof *e);
	e->kind = (uint8_t)kind;
	e->link = NONE;
	e->num = NO_NUM;
	e->node = FK_NODE_NONE;
	*idx = (uint32_t)c->ne++;
	return 0;
}

static int add_text(struct cx *c, const char *s, size_t n, uint32_t *off, uint32_t *len)
{
	if (c->tlen + n >= UINT32_MAX)
		return xc_fail(c, "more than 4 GiB of names");
	if (fk_vector_grow((void **)&c->text, &c->tcap, c->tlen + n + 1, 1, c->h->realloc) < 0)
		return FK_ERR_NOMEM;
	memcpy(c->text + c->tlen, s, n);
	*off = (uint32_t)c->tlen;
	*len = (uint32_t)n;
	c->tlen += n;
	return 0;
}

/* An id or ref attribute's value: a whole number from 1. */
static int id_value(struct cx *c, const char *what, const xmlChar *v, uint64_t *id)
{
	const char *s = (const char *)v;
	uint64_t x = 0;

	if (!*s)
		goto bad;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || x > (UINT64_MAX - (uint64_t)(*s - '0')) / 10)
			goto bad;
		x = x * 10 + (uint64_t)(*s - '0');
	}
	if (x == 0)
		goto bad;
	*id = x;
	return 0;
bad:
	return xc_fail(c, "%s=\"%.40s\" is not a whole number from 1", what, (const char *)v);
}

/* The attributes an element may carry: id or ref, its text (fmt, or name
 * and addr for a frame), copied into c->text only for a new entry. */
struct attrs {
	uint64_t id, ref;
	bool has_id, has_ref;
};

static int read_attrs(struct cx *c, int kind, struct attrs *a, uint32_t *idx)
{
	const xmlChar *nm;
	int rc;

	memset(a, 0, sizeof *a);
	*idx = NONE;
	/* id and ref first: the text is kept only for a new entry */
	for (int more = xmlTextReaderMoveToFirstAttribute(c->r); more == 1;
	     more = xmlTextReaderMoveToNextAttribute(c->r)) {
		nm = xmlTextReaderConstName(c->r);
		if (nm == c->nm[A_ID]) {
			if ((rc = id_value(c, "id", xmlTextReaderConstValue(c->r), &a->id)) < 0)
				return rc;
			a->has_id = true;
		} else if (nm == c->nm[A_REF]) {
			if ((rc = id_value(c, "ref", xmlTextReaderConstValue(c->r), &a->ref)) < 0)
				return rc;
			a->has_ref = true;
		}
	}
	xmlTextReaderMoveToElement(c->r);
	if (a->has_ref && a->has_id)
		return xc_fail(c, "<%s> has both an id and a ref", xc_names[kind]);
	if (a->has_ref) {
		uint32_t *s = slot_of(c, a->ref);
		if (!s)
			return xc_fail(c, "<%s ref=\"%" PRIu64 "\"> refers to no earlier element (an id is defined "
			            "before any ref to it)", xc_names[kind], a->ref);
		if (c->e[*s].kind != kind)
			return xc_fail(c, "<%s ref=\"%" PRIu64 "\"> refers to a <%s>, not a <%s>", xc_names[kind], a->ref,
			            xc_names[c->e[*s].kind], xc_names[kind]);
		*idx = *s;
		return 0;
	}
	if (a->has_id && slot_of(c, a->id))
		return xc_fail(c, "id=\"%" PRIu64 "\" is given to a second element", a->id);
	if ((rc = new_ent(c, kind, idx)) < 0)
		return rc;
	if (a->has_id && (rc = tab_put(c, a->id, *idx)) < 0)
		return rc;
	if (kind == K_FRAME || kind == K_BINARY || kind == K_THREAD || kind == K_PROCESS || kind == K_STATE) {
		const xmlChar *want = kind == K_FRAME || kind == K_BINARY ? c->nm[A_NAME] : c->nm[A_FMT];
		/* a frame without a name is its address */
		for (int more = xmlTextReaderMoveToFirstAttribute(c->r); more == 1;
		     more = xmlTextReaderMoveToNextAttribute(c->r)) {
			nm = xmlTextReaderConstName(c->r);
			if (nm == want || (kind == K_FRAME && nm == c->nm[A_ADDR] && !c->e[*idx].len)) {
				const char *v = (const char *)xmlTextReaderConstValue(c->r);
				if (!v || !*v)
					continue; /* an empty text is none */
				if ((rc = add_text(c, v, strlen(v), &c->e[*idx].off, &c->e[*idx].len)) < 0)
					return rc;
				if (nm == want)
					break;
			}
		}
		xmlTextReaderMoveToElement(c->r);
	}
	return 0;
}

/* A number's text: blanks around at most 18 digits (a sample-time, tid or
 * pid may have a minus sign). */
static int number(struct cx *c, int kind, int64_t *v)
{
	size_t i = 0, n = c->blen;
	const char *s = c->buf;
	int64_t x = 0;
	bool neg = false;

	while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'))
		i++;
	while (n > i && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n' || s[n - 1] == '\r'))
		n--;
	if (i < n && s[i] == '-' && kind != K_WEIGHT && kind != K_CYCLES) {
		neg = true;
		i++;
	}
	if (i == n || n - i > 18)
		goto bad;
	for (; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			goto bad;
		x = x * 10 + (s[i] - '0');
	}
	*v = neg ? -x : x;
	return 0;
bad:
	return xc_fail(c, "<%s> holds \"%.*s\", not a whole number%s", xc_names[kind], (int)(c->blen > 40 ? 40 : c->blen),
	            c->buf, kind == K_WEIGHT ? " of ns" : kind == K_CYCLES ? " of cycles" : "");
}

static int add_frames(struct cx *c, const uint32_t *f, size_t n)
{
	if (fk_vector_grow((void **)&c->fl, &c->flcap, c->fln + n, sizeof *c->fl,
	    c->h->realloc) < 0)
		return FK_ERR_NOMEM;
	memcpy(c->fl + c->fln, f, n * sizeof *f);
	c->fln += n;
	return 0;
}

static int element(struct cx *c, int kind, uint32_t *idx);

/* What a child (an entry) gives the new entry `p` that holds it. */
static int adopt(struct cx *c, uint32_t p, int ck, uint32_t ch)
{
	struct ent *e = &c->e[p], *k = &c->e[ch];

	switch (ck) {
	case K_TID: case K_PID:
		e->num = k->num;
		return 0;
	case K_PROCESS: case K_BINARY:
		e->link = ch;
		return 0;
	case K_FRAME:
		return add_frames(c, &ch, 1);
	case K_BT: /* an empty one's pool may be NULL */
		return k->len ? add_frames(c, c->pool + k->off, k->len) : 0;
	}
	return 0;
}

/* The body of new entry idx, up to its end tag: its children and text. */
static int body(struct cx *c, int kind, uint32_t idx)
{
	int d = xmlTextReaderDepth(c->r), rc = 0, ck;
	size_t base = c->fln;
	uint32_t ch;

	c->blen = 0;
	if (!xmlTextReaderIsEmptyElement(c->r))
		while ((rc = xc_next_child(c, d, holds[kind], (NUMERIC >> kind & 1) || kind == K_STATE, &ck)) > 0) {
			if ((rc = element(c, ck, &ch)) < 0 || (rc = adopt(c, idx, ck, ch)) < 0)
				return rc;
			c->blen = 0; /* a number is the text of an element holding no other */
		}
	if (rc < 0)
		return rc;
	if (NUMERIC >> kind & 1) {
		if (c->blen == 0 && kind != K_TID && kind != K_PID)
			return xc_fail(c, "<%s> holds no number", xc_names[kind]);
		if (c->blen && (rc = number(c, kind, &c->e[idx].num)) < 0)
			return rc;
	} else if (kind == K_STATE && c->e[idx].len == 0 && c->blen) {
		if ((rc = add_text(c, c->buf, c->blen, &c->e[idx].off, &c->e[idx].len)) < 0)
			return rc;
	} else if (kind == K_BT || kind == K_TAGGED) {
		size_t n = c->fln - base;
		if (fk_vector_grow((void **)&c->pool, &c->pcap, c->plen + n, sizeof *c->pool,
		    c->h->realloc) < 0)
			return FK_ERR_NOMEM;
		if (c->plen + n >= UINT32_MAX)
			return xc_fail(c, "more than 2^32 frames in the backtraces");
		if (n) /* an empty backtrace's pool and list may still be NULL */
			memcpy(c->pool + c->plen, c->fl + base, n * sizeof *c->fl);
		c->e[idx].off = (uint32_t)c->plen;
		c->e[idx].len = (uint32_t)n;
		c->plen += n;
		c->fln = base;
	}
	return 0;
}

/* The element the reader is on, of kind `kind`: its entry into *idx (an
 * earlier one for a ref), the reader left on its end. */
static int element(struct cx *c, int kind, uint32_t *idx)
{
	struct attrs a;
	int rc;

	if ((rc = read_attrs(c, kind, &a, idx)) < 0)
		return rc;
	if (a.has_ref)
		return xc_skip(c);
	return body(c, kind, *idx);
}

/* --- rows --------------------------------------------------------------- */

struct row {
	uint32_t col[N_KINDS]; /* the entry of each column, or NONE */
	long line;
};

static int push_row(struct cx *c, const struct row *w)
{
	const struct fk_host *h = c->h;
	uint32_t bt = w->col[K_TAGGED] != NONE ? w->col[K_TAGGED] : w->col[K_BT];
	uint32_t th = w->col[K_THREAD], pr = w->col[K_PROCESS], st = w->col[K_STATE];
	struct fk_sample smp;
	struct fk_sample_ext ext = FK_SAMPLE_EXT_INIT;
	struct fk_attr attr;
	struct ent *b;
	fk_node_t node = FK_NODE_NONE;
	uint32_t wt = w->col[c->table == T_CPU ? K_CYCLES : K_WEIGHT];
	bool root = c->o->thread_root && th != NONE && c->e[th].len;
	size_t n, k = 0;
	int rc;

	if (bt == NONE || c->e[bt].len == 0 || (c->by_weight && wt == NONE)) {
		h->input_skip(c->in, (uint64_t)w->line);
		return 0;
	}
	b = &c->e[bt];
	memset(&smp, 0, sizeof smp);
	smp.weight[0] = c->by_weight ? (double)c->e[wt].num : 1;
	if (w->col[K_TIME] != NONE) {
		int64_t t = c->e[w->col[K_TIME]].num;
		if (!fk_time_ns_fits_i64(t))
			return h->input_error(c->in, (uint64_t)w->line, "the row's sample-time, %" PRId64 " ns, is beyond "
			                      "the " FK_TIME_YEARS " years either side of 0 that flamekit's times hold", t);
		smp.flags |= FK_SAMPLE_TIME;
		smp.time_ns = t;
	}
	if (th != NONE) {
		const struct ent *t = &c->e[th];
		if (t->num != NO_NUM && t->num >= INT32_MIN && t->num <= INT32_MAX) {
			smp.flags |= FK_SAMPLE_TID;
			smp.tid = (int32_t)t->num;
		}
		if (t->len) {
			smp.flags |= FK_SAMPLE_COMM;
			smp.comm = c->text + t->off;
			smp.comm_len = t->len;
		}
		if (pr == NONE)
			pr = t->link;
	}
	if (pr != NONE && c->e[pr].num != NO_NUM && c->e[pr].num >= INT32_MIN && c->e[pr].num <= INT32_MAX) {
		smp.flags |= FK_SAMPLE_PID;
		smp.pid = (int32_t)c->e[pr].num;
	}
	if (st != NONE && c->e[st].len) {
		attr.key = "state";
		attr.key_len = 5;
		attr.value = c->text + c->e[st].off;
		attr.value_len = c->e[st].len;
		ext.attrs = &attr;
		ext.nattrs = 1;
	}
	if (!root && b->node != FK_NODE_NONE) {
		if (FK_HOST_HAS(h, push_ext))
			return h->push_ext(c->sink, b->node, &smp, ext.nattrs ? &ext : NULL, NULL);
		return h->push_node(c->sink, b->node, &smp);
	}
	n = b->len + (root ? 1 : 0);
	if (fk_vector_grow((void **)&c->refs, &c->caprefs, n, sizeof *c->refs, h->realloc) < 0)
		return FK_ERR_NOMEM;
	memset(c->refs, 0, n * sizeof *c->refs);
	if (root) {
		c->refs[k].name = smp.comm;
		c->refs[k++].len = smp.comm_len;
	}
	for (size_t i = b->len; i-- > 0; k++) {
		const struct ent *f = &c->e[c->pool[b->off + i]];
		if (f->len) {
			c->refs[k].name = c->text + f->off;
			c->refs[k].len = f->len;
		} else {
			c->refs[k].name = "[unknown]";
			c->refs[k].len = 9;
		}
		if (f->link != NONE && c->e[f->link].len) {
			c->refs[k].module = c->text + c->e[f->link].off;
			c->refs[k].module_len = c->e[f->link].len;
		}
	}
	smp.frames = c->refs;
	smp.nframes = n;
	if (FK_HOST_HAS(h, push_ext))
		rc = h->push_ext(c->sink, FK_NODE_NONE, &smp, ext.nattrs ? &ext : NULL, &node);
	else
		rc = h->push(c->sink, &smp, &node);
	if (rc == 0 && !root)
		b->node = node;
	return rc;
}

static int row(struct cx *c)
{
	struct row w;
	int d = xmlTextReaderDepth(c->r), rc = 0, k;
	uint32_t idx;

	for (k = 0; k < N_KINDS; k++)
		w.col[k] = NONE;
	w.line = xc_line(c);
	if (c->table == T_NONE)
		return xc_fail(c, "a <row> before the table's <schema>");
	if (c->table == T_OTHER)
		return xc_skip(c);
	if (!xmlTextReaderIsEmptyElement(c->r))
		while ((rc = xc_next_child(c, d, ROW_HOLDS, false, &k)) > 0) {
			if ((rc = element(c, k, &idx)) < 0)
				return rc;
			w.col[k] = idx;
		}
	if (rc < 0)
		return rc;
	return push_row(c, &w);
}

#define EXPORT_HINT "export the Time Profiler's table (xctrace export --xpath " \
	"'/trace-toc/run[@number=\"1\"]/data/table[@schema=\"time-profile\"]')"

static int schema(struct cx *c)
{
	xmlChar *v = xmlTextReaderGetAttribute(c->r, (const xmlChar *)"name");
	const char *nm = v ? (const char *)v : "";
	int rc = 0;

	c->table = !strcmp(nm, "time-profile") ? T_TIME : !strcmp(nm, "cpu-profile") ? T_CPU : T_OTHER;
	if (c->table == T_OTHER && !c->other_line) {
		snprintf(c->other, sizeof c->other, "%s", nm);
		c->other_line = xc_line(c);
	}
	if (c->by_weight && c->table != T_OTHER && (c->seen & ~(1u << c->table)))
		rc = xc_fail(c, "a %s table after a %s one: their weights are %s and %s, and flamekit reads one "
		          "unit per input (--sample-type samples counts the rows of both)", nm,
		          c->table == T_TIME ? "cpu-profile" : "time-profile", c->table == T_TIME ? "ns" : "cycles",
		          c->table == T_TIME ? "cycles" : "ns");
	if (c->table != T_OTHER)
		c->seen |= 1u << c->table;
	xmlFree(v);
	return rc < 0 ? rc : xc_skip(c);
}

/* The document: <trace-query-result>, its <node>s, their schema and rows;
 * at least one table of samples. */
static int document(struct cx *c)
{
	int rc, t;
	long root;

	while ((rc = xc_read(c)) > 0 && xmlTextReaderNodeType(c->r) != XML_READER_TYPE_ELEMENT)
		;
	if (rc <= 0)
		return rc;
	if (xmlTextReaderConstName(c->r) != c->nm[N_ROOT])
		return xc_fail(c, "the document is a <%.60s>, not an xctrace export (<trace-query-result>)",
		            (const char *)xmlTextReaderConstName(c->r));
	root = xc_line(c);
	rc = xmlTextReaderIsEmptyElement(c->r) ? 0 : 1;
	while (rc > 0 && (rc = xc_read(c)) > 0) {
		t = xmlTextReaderNodeType(c->r);
		if (t != XML_READER_TYPE_ELEMENT)
			continue;
		if (xmlTextReaderDepth(c->r) == 1 && xmlTextReaderConstName(c->r) == c->nm[N_NODE]) {
			c->table = T_NONE; /* into the node, whose schema comes first */
			continue;
		}
		if (xmlTextReaderDepth(c->r) == 2 && xmlTextReaderConstName(c->r) == c->nm[N_ROW])
			rc = row(c);
		else if (xmlTextReaderDepth(c->r) == 2 && xmlTextReaderConstName(c->r) == c->nm[N_SCHEMA])
			rc = schema(c);
		else
			rc = xc_skip(c);
		if (rc < 0)
			return rc;
		rc = 1;
	}
	if (rc < 0 || c->seen)
		return rc;
	if (c->other_line)
		return c->h->input_error(c->in, (uint64_t)c->other_line, "no time-profile or cpu-profile table "
		                         "(this table's schema is \"%.60s\"): " EXPORT_HINT, c->other);
	return c->h->input_error(c->in, (uint64_t)root, "the export holds no table (an --xpath that "
	                         "matched none?): " EXPORT_HINT);
}

/* --- the plugin ------------------------------------------------------------ */

static int check(const struct fk_host *h, const void *op, const char *where)
{
	const struct opts *o = op;

	(void)where;
	if (o->sample_type && strcmp(o->sample_type, "weight") != 0 && strcmp(o->sample_type, "samples") != 0) {
		h->log(FK_LOG_ERROR, "--sample-type takes weight or samples, not \"%s\"", o->sample_type);
		return FK_ERR_USAGE;
	}
	return fk_limit_check(h, o->max_input_size);
}

static void cx_free(struct cx *c)
{
	c->h->free(c->e);
	c->h->free(c->tab);
	c->h->free(c->dense);
	c->h->free(c->text);
	c->h->free(c->pool);
	c->h->free(c->fl);
	c->h->free(c->buf);
	c->h->free(c->refs);
}

static int parse(const struct fk_host *h, struct fk_input *in, struct fk_sink *sink, const void *op)
{
	static const struct opts defaults = { "weight", 0, "auto" };
	const struct opts *o = op ? op : &defaults;
	struct cx c;
	int rc;

	memset(&c, 0, sizeof c);
	c.h = h;
	c.in = in;
	c.sink = sink;
	c.o = o;
	c.by_weight = !o->sample_type || strcmp(o->sample_type, "samples") != 0;
	fk_limit_for(h, in, o->max_input_size, &c.lim);
	if ((rc = xc_open(&c)) < 0)
		goto out;
	rc = document(&c);
	if (rc > 0)
		rc = 0;
	if (rc == 0 && h->sink_set_unit)
		h->sink_set_unit(sink, !c.by_weight ? "samples" : c.seen & 1u << T_CPU ? "cycles" : "ns");
	if (rc == FK_ERR_NOMEM)
		h->input_error(in, (uint64_t)xc_line(&c), "out of memory");
out:
	xc_close(&c);
	cx_free(&c);
	return rc;
}

/* Detection: the document's root is <trace-query-result>, after an XML
 * declaration, comments, blanks or a DOCTYPE (which parse refuses). */
static int probe(const unsigned char *b, size_t n)
{
	static const char root[] = "<trace-query-result";
	size_t i = 0, rl = sizeof root - 1;

	if (n >= 3 && b[0] == 0xef && b[1] == 0xbb && b[2] == 0xbf)
		i = 3;
	for (;;) {
		const unsigned char *e;
		while (i < n && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n'))
			i++;
		if (n - i >= 4 && memcmp(b + i, "<!--", 4) == 0) {
			e = NULL;
			for (size_t j = i + 4; j + 3 <= n; j++)
				if (memcmp(b + j, "-->", 3) == 0) {
					e = b + j + 3;
					break;
				}
		} else if (n - i >= 2 && b[i] == '<' && b[i + 1] == '?') {
			e = NULL;
			for (size_t j = i + 2; j + 2 <= n; j++)
				if (b[j] == '?' && b[j + 1] == '>') {
					e = b + j + 2;
					break;
				}
		} else if (n - i >= 9 && memcmp(b + i, "<!DOCTYPE", 9) == 0) {
			/* taken, to be refused by name: up to its '>', past any [...] */
			const unsigned char *sq = memchr(b + i, '[', n - i), *gt = memchr(b + i, '>', n - i);
			if (sq && gt && sq < gt)
				gt = (sq = memchr(sq, ']', n - (size_t)(sq - b))) ? memchr(sq, '>', n - (size_t)(sq - b)) : NULL;
			e = gt ? gt + 1 : NULL;
		} else {
			break;
		}
		if (!e)
			return 0;
		i = (size_t)(e - b);
	}
	if (n - i <= rl || memcmp(b + i, root, rl) != 0)
		return 0;
	switch (b[i + rl]) {
	case '>': case ' ': case '\t': case '\r': case '\n': case '/':
		return 100;
	}
	return 0;
}

static struct fk_input_plugin plugin = {
	.h = {
		.name = "xctrace",
		.version = "1.0",
		.description = "Instruments' xctrace export XML of the Time Profiler's and CPU Profiler's tables",
		.options = options,
		.options_size = sizeof(struct opts),
	},
	.probe = probe,
	.parse = parse,
	.check = check,
};

FLAMEKIT_REGISTER_INPUT(plugin)
