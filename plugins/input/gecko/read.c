/*
 * The Firefox Profiler reader: yajl callbacks (through libfkjson) that keep
 * the columns gecko.c needs and drop everything else (markers, counters,
 * meta, pages) as it passes.  A table is either the Gecko format's
 * {"schema": {"stack": 0, ...}, "data": [[...], ...]} (the schema before
 * the data, as Firefox writes it; rows before their schema, as some
 * versions wrote them, are held until it comes) or the processed format's columns
 * {"stack": [...], "time": [...], ...}; both are read the same way.
 * "processes" (the Gecko format's child processes) are read recursively;
 * each has its own libraries.  Older Gecko versions hold "libs" as a string
 * of JSON, and a child process as a string of JSON among the "threads":
 * each is parsed in place.  Firefox DevTools' performance recordings (the
 * old performance panel's export) hold a Gecko profile in "profile".
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gecko.h"
#include "fk_json.h"

enum kind { K_SKIP, K_TOP, K_PROCS, K_THREADS, K_THREAD, K_TABLE, K_SCHEMA, K_ROWS, K_ROW,
            K_COLARR, K_STRS, K_LIBS, K_LIB, K_SHARED };
enum table { T_NONE, T_SAMPLES, T_STACK, T_FRAME, T_FUNC, T_RES };

static const struct { unsigned char table; const char *name; unsigned char col; } cols[] = {
	{ T_SAMPLES, "stack", C_STACK }, { T_SAMPLES, "time", C_TIME },
	{ T_SAMPLES, "timeDeltas", C_TDELTA }, { T_SAMPLES, "weight", C_WEIGHT },
	{ T_STACK, "frame", C_SFRAME }, { T_STACK, "prefix", C_SPREFIX },
	{ T_FRAME, "location", C_FLOC }, { T_FRAME, "func", C_FFUNC }, { T_FRAME, "address", C_FADDR },
	{ T_FUNC, "name", C_UNAME }, { T_FUNC, "resource", C_URES },
	{ T_RES, "lib", C_RLIB },
};

static const struct { const char *name; unsigned char table; } tables[] = {
	{ "samples", T_SAMPLES }, { "stackTable", T_STACK }, { "frameTable", T_FRAME },
	{ "funcTable", T_FUNC }, { "resourceTable", T_RES },
};

struct rd {
	const struct fk_host *h;
	struct gk_prof *p;
	struct fk_json j;
	unsigned char kind[FK_JSON_MAX_DEPTH + 2];
	unsigned char table[FK_JSON_MAX_DEPTH + 2];
	unsigned proc[FK_JSON_MAX_DEPTH + 2];   /* the process of each open K_TOP */
	char key[64];                           /* the last key, when it matters */
	size_t keylen;
	unsigned depth;
	struct gk_thread *th;                   /* the thread being read */
	int schema[C_NCOLS];                    /* the current table's column positions, -1 none */
	int has_schema;
	unsigned proc_at;                       /* a string of "threads" being read as a
	                                         * process, at this depth (0: none) */
	int held;                               /* the table's rows came before its schema: */
	double *hv;                             /* their values back to back, */
	size_t nhv, caphv, *hend, nhend, caphend; /* each row's end in hv */
	int col;                                /* K_COLARR: its column */
	size_t rowpos, rowlen[C_NCOLS];         /* K_ROW: position, the columns' lengths at its start */
	struct gk_strs *strs;                   /* K_STRS: where the strings go */
	double lib_start, lib_end;
	struct { char *s; size_t len, cap; } libname;
	int lib_named;
};

static int key_is(const struct rd *r, const char *k)
{
	return strlen(k) == r->keylen && memcmp(r->key, k, r->keylen) == 0;
}

static int push_col(struct rd *r, int c, double x)
{
	struct gk_col *col = &r->th->col[c];

	if (GK_GROW(r->h, col->v, col->cap, col->n + 1) < 0)
		return fk_json_nomem(&r->j);
	col->v[col->n++] = x;
	return 1;
}

static int add_str(struct rd *r, struct gk_strs *s, const unsigned char *t, size_t len)
{
	if (GK_GROW(r->h, s->text, s->tcap, s->tlen + len + 1) < 0 ||
	    GK_GROW(r->h, s->off, s->cap, s->n + 2) < 0)
		return fk_json_nomem(&r->j);
	if (s->n == 0)
		s->off[0] = 0;
	memcpy(s->text + s->tlen, t, len);
	s->tlen += len;
	s->off[++s->n] = s->tlen;
	return 1;
}

static int scalar(void *ctx, int type, double num, const unsigned char *s, size_t len)
{
	struct rd *r = ctx;
	unsigned k = r->kind[r->depth];
	double x = type == 'n' && fabs(num) < 1e300 ? num : NAN;

	switch (k) {
	case K_COLARR:
		return r->col < 0 ? 1 : push_col(r, r->col, x);
	case K_ROW:
		if (r->held) {
			if (GK_GROW(r->h, r->hv, r->caphv, r->nhv + 1) < 0)
				return fk_json_nomem(&r->j);
			r->hv[r->nhv++] = x;
			return 1;
		}
		for (int c = 0; c < C_NCOLS; c++)
			if (r->schema[c] == (int)r->rowpos && !push_col(r, c, x))
				return 0;
		r->rowpos++;
		return 1;
	case K_STRS:
		if (type != 's')
			return fk_json_fail(&r->j, "a string table holds something that is not a string");
		return add_str(r, r->strs, s, len);
	case K_SCHEMA:
		for (size_t i = 0; i < sizeof cols / sizeof *cols; i++)
			if (cols[i].table == r->table[r->depth] && key_is(r, cols[i].name)) {
				if (!(x >= 0 && x < 1000 && x == floor(x)))
					return fk_json_fail(&r->j, "a schema's position is not a small integer");
				r->schema[cols[i].col] = (int)x;
			}
		return 1;
	case K_TABLE:
		if (r->table[r->depth] == T_SAMPLES && key_is(r, "weightType") && type == 's') {
			r->th->weight_type = len == 7 && !memcmp(s, "samples", 7) ? W_SAMPLES :
			                     len == 10 && !memcmp(s, "tracing-ms", 10) ? W_TRACING_MS :
			                     len == 5 && !memcmp(s, "bytes", 5) ? W_BYTES : -1;
			if (r->th->weight_type < 0)
				return fk_json_fail(&r->j, "weightType \"%.*s\" is none of samples, tracing-ms, "
				                    "bytes", (int)(len > 40 ? 40 : len), (const char *)s);
		}
		return 1;
	case K_THREAD:
		if (key_is(r, "name") && type == 's') {
			char *n = r->h->realloc(r->th->name, len + 1);
			if (!n)
				return fk_json_nomem(&r->j);
			memcpy(n, s, len);
			n[len] = '\0';
			r->th->name = n;
			r->th->name_len = len;
		} else if (key_is(r, "pid") || key_is(r, "tid")) {
			double v = x;
			if (type == 's' && len > 0 && len < 12) { /* the processed format's pid is a string */
				char b[16];
				char *e;
				memcpy(b, s, len);
				b[len] = '\0';
				v = strtod(b, &e);
				if (*e)
					v = NAN;
			}
			if (key_is(r, "pid"))
				r->th->pid = v;
			else
				r->th->tid = v;
		}
		return 1;
	case K_LIB:
		if (key_is(r, "name") && type == 's') {
			if (GK_GROW(r->h, r->libname.s, r->libname.cap, len + 1) < 0)
				return fk_json_nomem(&r->j);
			memcpy(r->libname.s, s, len);
			r->libname.len = len;
			r->lib_named = 1;
		} else if (key_is(r, "start")) {
			r->lib_start = x;
		} else if (key_is(r, "end")) {
			r->lib_end = x;
		}
		return 1;
	case K_TOP:
		if (key_is(r, "libs") && type == 's') /* older Gecko versions: a string of JSON */
			return fk_json_parse_inner(&r->j, s, len, "\"libs\"");
		if (key_is(r, "threads") || key_is(r, "libs") || key_is(r, "processes"))
			return fk_json_fail(&r->j, "\"%.*s\" is not an array", (int)r->keylen, r->key);
		return 1;
	case K_THREADS:
		if (type == 's' && !r->proc_at) { /* older Gecko versions: a child process, a string of JSON */
			int ok;
			r->proc_at = r->depth;
			ok = fk_json_parse_inner(&r->j, s, len, "a child process");
			r->proc_at = 0;
			return ok;
		}
		/* fall through */
	case K_PROCS:
	case K_LIBS:
		return fk_json_fail(&r->j, k == K_THREADS ? "a thread is not an object" :
		                    k == K_LIBS ? "a library is not an object" : "a process is not an object");
	}
	if (r->depth == 0)
		return fk_json_fail(&r->j, "the JSON is not an object");
	return 1;
}


static int on_key(void *x, const unsigned char *s, size_t len)
{
	struct rd *r = x;

	r->keylen = len < sizeof r->key ? len : sizeof r->key - 1;
	memcpy(r->key, s, r->keylen);
	if (len >= sizeof r->key)
		r->keylen = 0; /* no key of ours is this long */
	return 1;
}

static unsigned cur_proc(const struct rd *r)
{
	for (unsigned d = r->depth; d > 0; d--)
		if (r->kind[d] == K_TOP)
			return r->proc[d];
	return 0;
}

static int open_table(struct rd *r, unsigned t)
{
	for (int c = 0; c < C_NCOLS; c++)
		r->schema[c] = -1;
	r->has_schema = 0;
	r->held = 0;
	r->nhv = r->nhend = 0;
	(void)t;
	return 1;
}

static int open_container(void *x, int is_map)
{
	struct rd *r = x;
	struct gk_prof *p = r->p;
	unsigned parent = r->kind[r->depth], nk = K_SKIP, tab = r->table[r->depth];

	if (r->depth >= FK_JSON_MAX_DEPTH)
		return 0;
	if (r->depth == 0 && is_map) {
		nk = K_TOP;
	} else if (r->depth == 1 && parent == K_TOP && is_map && key_is(r, "profile")) {
		nk = K_TOP; /* Firefox DevTools' recording: its Gecko profile */
	} else if (r->depth == 0) {
		return fk_json_fail(&r->j, "the JSON is not an object");
	} else if (parent == K_TOP && !is_map && key_is(r, "threads")) {
		nk = K_THREADS;
	} else if (parent == K_TOP && !is_map && key_is(r, "libs")) {
		nk = K_LIBS;
	} else if (parent == K_TOP && !is_map && key_is(r, "processes")) {
		nk = K_PROCS;
	} else if (parent == K_TOP && is_map && key_is(r, "shared")) {
		nk = K_SHARED;
	} else if (parent == K_SHARED && !is_map && key_is(r, "stringArray")) {
		nk = K_STRS, r->strs = &p->shared, p->shared.set = 1;
	} else if (parent == K_SHARED && is_map) {
		for (size_t i = 0; i < sizeof tables / sizeof *tables; i++)
			if (tables[i].table != T_SAMPLES && key_is(r, tables[i].name)) {
				r->th = &p->shared_t;
				nk = K_TABLE, tab = tables[i].table, open_table(r, tab);
			}
	} else if ((parent == K_PROCS && is_map) || (parent == K_THREADS && is_map && r->proc_at == r->depth)) {
		nk = K_TOP;
	} else if (parent == K_THREADS && is_map) {
		if (GK_GROW(r->h, p->threads, p->capthreads, p->nthreads + 1) < 0)
			return fk_json_nomem(&r->j);
		r->th = &p->threads[p->nthreads++];
		memset(r->th, 0, sizeof *r->th);
		r->th->pid = r->th->tid = NAN;
		r->th->proc = cur_proc(r);
		nk = K_THREAD;
	} else if (parent == K_LIBS && is_map) {
		nk = K_LIB, r->lib_start = r->lib_end = NAN, r->lib_named = 0;
	} else if (parent == K_THREADS || parent == K_PROCS || parent == K_LIBS) {
		return scalar(r, 'a', NAN, NULL, 0);
	} else if (parent == K_THREAD && !is_map && (key_is(r, "stringTable") || key_is(r, "stringArray"))) {
		if (r->th->strs.set)
			return fk_json_fail(&r->j, "a thread has two string tables");
		nk = K_STRS, r->strs = &r->th->strs, r->th->strs.set = 1;
	} else if (parent == K_THREAD && is_map) {
		for (size_t i = 0; i < sizeof tables / sizeof *tables; i++)
			if (key_is(r, tables[i].name))
				nk = K_TABLE, tab = tables[i].table, open_table(r, tab);
	} else if (parent == K_TABLE && is_map && key_is(r, "schema")) {
		nk = K_SCHEMA, r->has_schema = 1;
	} else if (parent == K_TABLE && !is_map && key_is(r, "data")) {
		r->held = !r->has_schema;
		nk = K_ROWS;
	} else if (parent == K_TABLE && !is_map) {
		nk = K_COLARR, r->col = -1;
		for (size_t i = 0; i < sizeof cols / sizeof *cols; i++)
			if (cols[i].table == tab && key_is(r, cols[i].name)) {
				r->col = cols[i].col;
				if (r->th->has_col[r->col]++)
					return fk_json_fail(&r->j, "a table has column \"%s\" twice", cols[i].name);
			}
	} else if (parent == K_ROWS && !is_map && r->held) {
		nk = K_ROW;
	} else if (parent == K_ROWS && !is_map) {
		nk = K_ROW, r->rowpos = 0;
		for (int c = 0; c < C_NCOLS; c++) {
			r->rowlen[c] = r->th->col[c].n;
			if (r->schema[c] >= 0)
				r->th->has_col[c] = 1;
		}
	} else if (parent == K_ROW || parent == K_COLARR || parent == K_STRS) {
		/* an object or array where a value was due: a missing value */
		if (parent == K_STRS)
			return scalar(r, 'a', NAN, NULL, 0);
		if (!scalar(r, 'z', NAN, NULL, 0))
			return 0;
	}
	r->depth++;
	r->kind[r->depth] = (unsigned char)nk;
	r->table[r->depth] = (unsigned char)(nk == K_TABLE || nk == K_SCHEMA || nk == K_ROWS ||
	                                     nk == K_ROW || nk == K_COLARR ? tab : T_NONE);
	if (nk == K_TOP)
		r->proc[r->depth] = r->depth == 1 || (r->depth == 2 && key_is(r, "profile")) ? 0 : ++p->nprocs;
	return 1;
}

/* The schema has come after the rows: each held row into the columns. */
static int replay(struct rd *r)
{
	size_t b = 0;

	r->held = 0;
	for (int c = 0; c < C_NCOLS; c++)
		if (r->schema[c] >= 0)
			r->th->has_col[c] = 1;
	for (size_t i = 0; i < r->nhend; b = r->hend[i++])
		for (int c = 0; c < C_NCOLS; c++) {
			size_t pos = (size_t)r->schema[c];
			if (r->schema[c] >= 0 &&
			    !push_col(r, c, b + pos < r->hend[i] ? r->hv[b + pos] : NAN))
				return 0;
		}
	r->nhv = r->nhend = 0;
	return 1;
}

static int on_end(void *x)
{
	struct rd *r = x;
	struct gk_prof *p = r->p;
	unsigned k = r->kind[r->depth];

	if (k == K_ROW && r->held) {
		if (GK_GROW(r->h, r->hend, r->caphend, r->nhend + 1) < 0)
			return fk_json_nomem(&r->j);
		r->hend[r->nhend++] = r->nhv;
	} else if (k == K_SCHEMA && r->held && !replay(r)) {
		return 0;
	} else if (k == K_TABLE && r->held && !r->has_schema) {
		return fk_json_fail(&r->j, "a table has \"data\" and no \"schema\"");
	} else if (k == K_ROW) { /* a row too short: its missing values */
		for (int c = 0; c < C_NCOLS; c++)
			if (r->schema[c] >= 0 && r->th->col[c].n == r->rowlen[c] && !push_col(r, c, NAN))
				return 0;
	} else if (k == K_THREAD) {
		r->th->line = fk_json_line(&r->j);
	} else if (k == K_LIB) {
		struct gk_lib *l;
		if (GK_GROW(r->h, p->libs, p->caplibs, p->nlibs + 1) < 0 ||
		    GK_GROW(r->h, p->libtext, p->ltcap, p->ltlen + r->libname.len + 1) < 0)
			return fk_json_nomem(&r->j);
		l = &p->libs[p->nlibs++];
		l->proc = cur_proc(r);
		l->start = r->lib_start;
		l->end = r->lib_end;
		l->name_off = p->ltlen;
		l->name_len = r->lib_named ? r->libname.len : 0;
		if (l->name_len)
			memcpy(p->libtext + p->ltlen, r->libname.s, l->name_len);
		p->ltlen += l->name_len;
	}
	r->depth--;
	r->keylen = 0;
	return 1;
}

static const struct fk_json_ops ops = {
	.scalar = scalar, .key = on_key, .open = open_container, .close = on_end,
};

int gk_read(const struct fk_host *h, struct fk_input *in, const struct fk_input_limit *lim,
            struct gk_prof *p)
{
	struct rd *r = h->alloc(sizeof *r);
	int rc;

	if (!r || GK_GROW(h, p->libtext, p->ltcap, 1) < 0) {
		h->free(r);
		h->input_error(in, 0, "out of memory");
		return FK_ERR_NOMEM;
	}
	memset(r, 0, sizeof *r);
	r->h = h;
	r->p = p;
	fk_json_init(&r->j, h, in, "Firefox Profiler file", lim);
	rc = fk_json_parse(&r->j, &ops, r);
	h->free(r->libname.s);
	h->free(r->hv);
	h->free(r->hend);
	h->free(r);
	return rc;
}

static void strs_free(const struct fk_host *h, struct gk_strs *s)
{
	h->free(s->text);
	h->free(s->off);
}

void gk_prof_free(const struct fk_host *h, struct gk_prof *p)
{
	for (size_t i = 0; i < p->nthreads; i++) {
		for (int c = 0; c < C_NCOLS; c++)
			h->free(p->threads[i].col[c].v);
		strs_free(h, &p->threads[i].strs);
		h->free(p->threads[i].name);
	}
	strs_free(h, &p->shared);
	for (int c = 0; c < C_NCOLS; c++)
		h->free(p->shared_t.col[c].v);
	h->free(p->threads);
	h->free(p->libs);
	h->free(p->libtext);
}
