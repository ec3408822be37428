/*
 * One JFR chunk: the 68-byte header (magic "FLR\0", version, size, the
 * constant pool and metadata offsets, start nanos and ticks, ticks per
 * second, the flags byte whose bit 0 says integers are compressed), the
 * metadata event (a string table, then a tree of elements: "class" with
 * its "field"s), and the checkpoint events (type 1) whose pools map a key
 * to a value of a type the metadata describes.  Written from the format
 * as the JDK's jdk.jfr.internal.consumer reads it; see jfr.h.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jfr.h"

#define MAX_DEPTH 32
/* Fields a type may have (the JDK's have at most a few tens): with values
 * of empty structs read in no time, reading costs at most this much work
 * per byte of the file. */
#define MAX_FIELDS 256
#define HEADER 68

void jfr_fail(struct jfr_rd *r, const char *fmt, ...)
{
	va_list ap;

	if (r->c->err)
		return;
	r->c->err = 1;
	r->c->errat = r->pos;
	va_start(ap, fmt);
	vsnprintf(r->c->errmsg, sizeof r->c->errmsg, fmt, ap);
	va_end(ap);
}

static int need(struct jfr_rd *r, size_t n)
{
	if (r->c->err)
		return 0;
	if (n > jfr_left(r) || r->pos > r->end) {
		jfr_fail(r, "truncated: %zu bytes needed, %zu left in the %s", n, jfr_left(r),
		         r->end == r->c->end ? "chunk" : "record");
		return 0;
	}
	return 1;
}

uint8_t jfr_u8(struct jfr_rd *r)
{
	return need(r, 1) ? r->c->buf[r->pos++] : 0;
}

uint64_t jfr_be(struct jfr_rd *r, int n)
{
	uint64_t v = 0;

	if (!need(r, (size_t)n))
		return 0;
	for (int i = 0; i < n; i++)
		v = v << 8 | r->c->buf[r->pos++];
	return v;
}

/* Compressed: 7 bits a byte, low first, the 9th byte whole. */
static uint64_t varint(struct jfr_rd *r)
{
	uint64_t v = 0;

	for (int i = 0; i < 9; i++) {
		uint8_t b = jfr_u8(r);
		if (r->c->err)
			return 0;
		if (i == 8)
			return v | (uint64_t)b << 56;
		v |= (uint64_t)(b & 0x7f) << (7 * i);
		if (!(b & 0x80))
			return v;
	}
	return v;
}

uint64_t jfr_long(struct jfr_rd *r)
{
	return r->c->compressed ? varint(r) : jfr_be(r, 8);
}

uint32_t jfr_int(struct jfr_rd *r)
{
	return r->c->compressed ? (uint32_t)varint(r) : (uint32_t)jfr_be(r, 4);
}

/* A count of items of at least one byte each... or of none (an empty
 * struct): never more than the bytes left, so a loop over it ends. */
static uint32_t count(struct jfr_rd *r, const char *what)
{
	uint32_t n = jfr_int(r);

	if (!r->c->err && (n > jfr_left(r) || r->pos > r->end)) {
		jfr_fail(r, "%s count %u exceeds the %zu bytes left", what, n, jfr_left(r));
		return 0;
	}
	return n;
}

/* A string: 0 null, 1 empty, 2 a java.lang.String pool key, 3 UTF-8,
 * 4 chars (each an int), 5 Latin-1. */
static void read_string(struct jfr_rd *r, struct jfr_val *v)
{
	uint8_t e = jfr_u8(r);
	uint32_t n;

	memset(v, 0, sizeof *v);
	switch (e) {
	case 0: case 1:
		v->kind = 2;
		v->enc = 3;
		return;
	case 2:
		v->kind = 3;
		v->u = jfr_long(r);
		return;
	case 3: case 5:
		n = count(r, "string length");
		if (!need(r, n))
			return;
		v->kind = 2;
		v->enc = e;
		v->s = r->c->buf + r->pos;
		v->len = n;
		r->pos += n;
		return;
	case 4:
		n = count(r, "string length");
		v->kind = 2;
		v->enc = 4;
		v->s = r->c->buf + r->pos;
		for (uint32_t i = 0; i < n && !r->c->err; i++)
			(void)jfr_int(r);
		v->len = r->pos - (size_t)(v->s - r->c->buf);
		return;
	default:
		if (!r->c->err)
			jfr_fail(r, "unknown string encoding %u", e);
	}
}

static void read_value(struct jfr_rd *r, const struct jfr_field *f, struct jfr_val *v, int depth)
{
	struct jfr_chunk *c = r->c;
	int prim = f->cls >= 0 ? c->cls[f->cls].prim : JP_STRUCT;

	memset(v, 0, sizeof *v);
	if (f->cp) {
		v->kind = 1;
		v->u = jfr_long(r);
		return;
	}
	switch (prim) {
	case JP_BOOL: case JP_BYTE:
		v->kind = 1;
		v->u = jfr_u8(r);
		return;
	case JP_SHORT: case JP_CHAR: case JP_INT:
		v->kind = 1;
		v->u = jfr_int(r);
		return;
	case JP_LONG:
		v->kind = 1;
		v->u = jfr_long(r);
		return;
	case JP_FLOAT:
		(void)jfr_be(r, 4);
		return;
	case JP_DOUBLE:
		(void)jfr_be(r, 8);
		return;
	case JP_STRING:
		read_string(r, v);
		return;
	default:
		if (f->cls < 0) {
			jfr_fail(r, "field %s has type %llu, which the metadata does not define", f->name,
			         (unsigned long long)f->type);
			return;
		}
		if (!c->cls[f->cls].empty)
			jfr_read_struct(r, f->cls, NULL, 0, depth + 1);
	}
}

void jfr_skip_field(struct jfr_rd *r, const struct jfr_field *f, int depth)
{
	struct jfr_val v;

	if (f->array) {
		uint32_t n = count(r, "array");
		for (uint32_t i = 0; i < n && !r->c->err; i++)
			read_value(r, f, &v, depth);
	} else {
		read_value(r, f, &v, depth);
	}
}

void jfr_read_struct(struct jfr_rd *r, int cls, struct jfr_val *vals, size_t nvals, int depth)
{
	const struct jfr_class *k = &r->c->cls[cls];

	if (depth > MAX_DEPTH) {
		jfr_fail(r, "values nested more than %d deep (type %s)", MAX_DEPTH, k->name);
		return;
	}
	if (k->prim != JP_STRUCT) {
		/* a simple value of a primitive class, as a field of it */
		struct jfr_field f = { k->name, k->id, 0, 0, cls };
		struct jfr_val v;
		read_value(r, &f, nvals ? vals : &v, depth);
		return;
	}
	for (size_t i = 0; i < k->nf && !r->c->err; i++) {
		const struct jfr_field *f = &r->c->f[k->f0 + i];
		if (i < nvals && !f->array)
			read_value(r, f, &vals[i], depth);
		else
			jfr_skip_field(r, f, depth);
	}
}

int jfr_class_named(const struct jfr_chunk *c, const char *name)
{
	for (size_t i = 0; i < c->ncls; i++)
		if (!strcmp(c->cls[i].name, name))
			return (int)i;
	return -1;
}

int jfr_field_index(const struct jfr_chunk *c, int cls, const char *name)
{
	if (cls < 0)
		return -1;
	for (size_t i = 0; i < c->cls[cls].nf; i++)
		if (!strcmp(c->f[c->cls[cls].f0 + i].name, name))
			return (int)i;
	return -1;
}

static int cmp_id(const void *a, const void *b)
{
	const struct jfr_id *x = a, *y = b;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* The class of id, by the sorted ids (made once the metadata is read). */
static int class_by_id(const struct jfr_chunk *c, uint64_t id)
{
	struct jfr_id key = { id, 0 };
	const struct jfr_id *k;

	if (!c->byid)
		return -1;
	k = bsearch(&key, c->byid, c->ncls, sizeof key, cmp_id);
	return k ? k->idx : -1;
}

/* --- metadata --- */

struct meta {
	struct jfr_rd *r;
	size_t cap_cls, cap_f;
	int cur;             /* the class whose fields are being read, or -1 */
};

static const char *mstr(struct jfr_rd *r, uint32_t i)
{
	if (i >= r->c->nstrs) {
		jfr_fail(r, "metadata names string %u of a table of %zu", i, r->c->nstrs);
		return "";
	}
	return r->c->strs[i];
}

/* Copy a metadata string as NUL-terminated UTF-8. */
static char *dup_string(struct jfr_rd *r)
{
	struct jfr_val v;
	char *s;
	size_t cap;

	read_string(r, &v);
	if (r->c->err)
		return NULL;
	if (v.kind == 3) {
		jfr_fail(r, "a metadata string refers to a constant pool");
		return NULL;
	}
	cap = v.len * 3 + 1;
	if (!(s = r->c->h->alloc(cap)))
		return NULL;
	s[jfr_text(r->c, &v, -1, s, cap)] = '\0';
	return s;
}

static int add_class(struct meta *m, const char *name, uint64_t id, int simple)
{
	struct jfr_chunk *c = m->r->c;
	static const char *const prims[] = { "", "boolean", "byte", "short", "char", "int", "long",
	                                     "float", "double", "java.lang.String" };

	(void)simple;
	if (fk_vector_grow((void **)&c->cls, &m->cap_cls, c->ncls + 1, sizeof *c->cls,
	    c->h->realloc) < 0)
		return FK_ERR_NOMEM;
	c->cls[c->ncls] = (struct jfr_class){ id, name, JP_STRUCT, 0, c->nf, 0 };
	for (int p = 1; p <= JP_STRING; p++)
		if (!strcmp(name, prims[p]))
			c->cls[c->ncls].prim = p;
	m->cur = (int)c->ncls++;
	return 0;
}

static int add_field(struct meta *m, const char *name, uint64_t type, int cp, int array)
{
	struct jfr_chunk *c = m->r->c;

	if (m->cur < 0 || (size_t)m->cur != c->ncls - 1)
		return 0; /* a field outside a class: ignored */
	if (c->cls[m->cur].nf == MAX_FIELDS) {
		jfr_fail(m->r, "type %s has more than %d fields", c->cls[m->cur].name, MAX_FIELDS);
		return 0;
	}
	if (fk_vector_grow((void **)&c->f, &m->cap_f, c->nf + 1, sizeof *c->f, c->h->realloc) < 0)
		return FK_ERR_NOMEM;
	c->f[c->nf++] = (struct jfr_field){ name, type, cp, array, -1 };
	c->cls[m->cur].nf++;
	return 0;
}

static int element(struct meta *m, int depth)
{
	struct jfr_rd *r = m->r;
	const char *ename, *name = NULL, *id = NULL, *cls = NULL, *dim = NULL, *cp = NULL, *simple = NULL;
	uint32_t na, nc;
	int rc = 0, was = m->cur;

	if (depth > MAX_DEPTH) {
		jfr_fail(r, "metadata elements nested more than %d deep", MAX_DEPTH);
		return 0;
	}
	ename = mstr(r, jfr_int(r));
	na = count(r, "metadata attribute");
	for (uint32_t i = 0; i < na && !r->c->err; i++) {
		const char *k = mstr(r, jfr_int(r)), *v = mstr(r, jfr_int(r));
		if (!strcmp(k, "name")) name = v;
		else if (!strcmp(k, "id")) id = v;
		else if (!strcmp(k, "class")) cls = v;
		else if (!strcmp(k, "dimension")) dim = v;
		else if (!strcmp(k, "constantPool")) cp = v;
		else if (!strcmp(k, "simpleType")) simple = v;
	}
	if (r->c->err)
		return 0;
	if (!strcmp(ename, "class")) {
		if (!name || !id) {
			jfr_fail(r, "a metadata class without a name or an id");
			return 0;
		}
		rc = add_class(m, name, strtoull(id, NULL, 10), simple && !strcmp(simple, "true"));
	} else if (!strcmp(ename, "field")) {
		if (!name || !cls) {
			jfr_fail(r, "a metadata field without a name or a class");
			return 0;
		}
		rc = add_field(m, name, strtoull(cls, NULL, 10), cp && !strcmp(cp, "true"),
		               dim && strcmp(dim, "0") != 0);
		m->cur = -1; /* a field's children are annotations */
	}
	nc = count(r, "metadata child");
	for (uint32_t i = 0; rc == 0 && i < nc && !r->c->err; i++)
		rc = element(m, depth + 1);
	m->cur = was;
	return rc;
}

/* Which structs take no bytes (no fields, or only fields of such structs,
 * cycles included): their values are not read at all, so that nesting
 * them cannot make a value of a few bytes cost exponential time. */
static void mark_empty(struct jfr_chunk *c)
{
	int changed = 1;

	for (size_t i = 0; i < c->ncls; i++)
		c->cls[i].empty = c->cls[i].prim == JP_STRUCT;
	while (changed) {
		changed = 0;
		for (size_t i = 0; i < c->ncls; i++) {
			struct jfr_class *k = &c->cls[i];
			for (size_t j = 0; k->empty && j < k->nf; j++) {
				const struct jfr_field *f = &c->f[k->f0 + j];
				if (f->cp || f->array || f->cls < 0 || !c->cls[f->cls].empty) {
					k->empty = 0;
					changed = 1;
				}
			}
		}
	}
}

static int read_metadata(struct jfr_chunk *c, size_t off)
{
	struct jfr_rd r = { c, off, c->end };
	struct meta m = { &r, 0, 0, -1 };
	uint64_t size;
	uint32_t n;
	int rc;

	size = jfr_int(&r);
	if (!c->err && (size < 1 || size > c->end - off)) {
		jfr_fail(&r, "the metadata event's size %llu runs past the chunk", (unsigned long long)size);
		return -1;
	}
	r.end = off + size;
	if (jfr_long(&r) != 0 && !c->err)
		jfr_fail(&r, "the metadata offset does not point at a metadata event");
	(void)jfr_long(&r); /* start */
	(void)jfr_long(&r); /* duration */
	(void)jfr_long(&r); /* metadata id */
	n = count(&r, "metadata string");
	if (c->err)
		return -1;
	if (!(c->strs = c->h->alloc((n ? n : 1) * sizeof *c->strs)))
		return FK_ERR_NOMEM;
	for (uint32_t i = 0; i < n && !c->err; i++) {
		if (!(c->strs[i] = dup_string(&r)) && !c->err)
			return FK_ERR_NOMEM;
		c->nstrs++;
	}
	if (c->err)
		return -1;
	if ((rc = element(&m, 0)) < 0)
		return rc;
	if (!(c->byid = c->h->alloc((c->ncls ? c->ncls : 1) * sizeof *c->byid)))
		return FK_ERR_NOMEM;
	for (size_t i = 0; i < c->ncls; i++)
		c->byid[i] = (struct jfr_id){ c->cls[i].id, (int)i };
	qsort(c->byid, c->ncls, sizeof *c->byid, cmp_id);
	for (size_t i = 0; i + 1 < c->ncls; i++)
		if (c->byid[i].id == c->byid[i + 1].id) {
			jfr_fail(&r, "the metadata defines type id %llu twice", (unsigned long long)c->byid[i].id);
			return -1;
		}
	for (size_t i = 0; i < c->nf; i++)
		c->f[i].cls = class_by_id(c, c->f[i].type);
	mark_empty(c);
	return c->err ? -1 : 0;
}

/* --- constant pools --- */

static uint64_t mix(uint32_t cls, uint64_t key)
{
	uint64_t h = key * 0x9e3779b97f4a7c15ull ^ cls * 0xc2b2ae3d27d4eb4full;
	return h ^ h >> 29;
}

static int pool_put(struct jfr_chunk *c, uint32_t cls, uint64_t key, size_t off)
{
	struct jfr_pool_ent *e;

	if (2 * (c->pool_used + 1) > c->pool_mask + 1) {
		size_t n = c->pool_mask ? 2 * (c->pool_mask + 1) : 1024;
		struct jfr_pool_ent *v = c->h->alloc(n * sizeof *v);
		if (!v)
			return FK_ERR_NOMEM;
		memset(v, 0, n * sizeof *v);
		for (size_t i = 0; c->pool && i <= c->pool_mask; i++) {
			if (!c->pool[i].cls)
				continue;
			for (size_t j = mix(c->pool[i].cls, c->pool[i].key) & (n - 1);; j = (j + 1) & (n - 1))
				if (!v[j].cls) {
					v[j] = c->pool[i];
					break;
				}
		}
		c->h->free(c->pool);
		c->pool = v;
		c->pool_mask = n - 1;
	}
	for (size_t j = mix(cls + 1, key) & c->pool_mask;; j = (j + 1) & c->pool_mask) {
		e = &c->pool[j];
		if (!e->cls) {
			*e = (struct jfr_pool_ent){ key, cls + 1, off };
			c->pool_used++;
			return 0;
		}
		if (e->cls == cls + 1 && e->key == key)
			return 0; /* the first definition stays */
	}
}

size_t jfr_pool_find(const struct jfr_chunk *c, int cls, uint64_t key)
{
	if (cls < 0 || !c->pool)
		return 0;
	for (size_t j = mix((uint32_t)cls + 1, key) & c->pool_mask;; j = (j + 1) & c->pool_mask) {
		const struct jfr_pool_ent *e = &c->pool[j];
		if (!e->cls)
			return 0;
		if (e->cls == (uint32_t)cls + 1 && e->key == key)
			return e->off;
	}
}

size_t jfr_pool_next(const struct jfr_chunk *c, int cls, size_t *it)
{
	if (cls < 0 || !c->pool)
		return 0;
	while (*it <= c->pool_mask) {
		const struct jfr_pool_ent *e = &c->pool[(*it)++];
		if (e->cls == (uint32_t)cls + 1)
			return e->off;
	}
	return 0;
}

/* One checkpoint event: start, duration, delta, a type byte, then pools of
 * (type id, count, count x (key, value)). */
static int read_checkpoint(struct jfr_rd *r)
{
	struct jfr_chunk *c = r->c;
	uint32_t npools;
	int rc;

	(void)jfr_long(r);
	(void)jfr_long(r);
	(void)jfr_long(r);
	(void)jfr_u8(r);
	npools = count(r, "constant pool");
	for (uint32_t p = 0; p < npools && !c->err; p++) {
		uint64_t tid = jfr_long(r);
		uint32_t n = count(r, "constant");
		int k = class_by_id(c, tid);
		if (c->err)
			break;
		if (k < 0) {
			jfr_fail(r, "a constant pool of type %llu, which the metadata does not define",
			         (unsigned long long)tid);
			break;
		}
		for (uint32_t i = 0; i < n && !c->err; i++) {
			uint64_t key = jfr_long(r);
			if (!c->err && (rc = pool_put(c, (uint32_t)k, key, r->pos)) < 0)
				return rc;
			jfr_read_struct(r, k, NULL, 0, 0);
		}
	}
	return c->err ? -1 : 0;
}

/* Every checkpoint in the chunk, found by walking its events in order (the
 * JDK chains them backwards from the header's offset by deltas; walking
 * the events meets each once, and cannot loop). */
static int read_pools(struct jfr_chunk *c)
{
	struct jfr_rd r = { c, c->start + HEADER, c->end };

	while (r.pos < c->end && !c->err) {
		size_t at = r.pos;
		uint64_t size = jfr_int(&r), type;
		int rc;
		if (c->err)
			break;
		if (size == 0 || size > c->end - at) {
			jfr_fail(&r, "an event's size %llu runs past the chunk", (unsigned long long)size);
			break;
		}
		type = jfr_long(&r);
		if (type == 1 && !c->err) {
			struct jfr_rd ev = { c, r.pos, at + size };
			if ((rc = read_checkpoint(&ev)) == FK_ERR_NOMEM)
				return rc;
		}
		r.pos = at + (size_t)size;
	}
	return c->err ? -1 : 0;
}

int jfr_chunk_open(struct jfr_chunk *c, const struct fk_host *h, const uint8_t *buf, size_t len,
                   size_t start)
{
	struct jfr_rd r = { c, start, len };
	uint64_t size, cpoff, meta;
	uint8_t flags;
	int rc;

	memset(c, 0, sizeof *c);
	c->h = h;
	c->buf = buf;
	c->start = start;
	c->end = len;
	if (!need(&r, HEADER))
		return -1;
	if (memcmp(buf + start, "FLR", 4) != 0) {
		jfr_fail(&r, "not a JFR chunk: no FLR magic");
		return -1;
	}
	r.pos += 4;
	{
		unsigned major = (unsigned)jfr_be(&r, 2), minor = (unsigned)jfr_be(&r, 2);
		if (major != 2) {
			r.pos = start + 4;
			jfr_fail(&r, "JFR version %u.%u: only 2.x is read", major, minor);
			return -1;
		}
	}
	size = jfr_be(&r, 8);
	cpoff = jfr_be(&r, 8);
	meta = jfr_be(&r, 8);
	c->start_nanos = jfr_be(&r, 8);
	(void)jfr_be(&r, 8); /* duration */
	c->start_ticks = jfr_be(&r, 8);
	c->tps = jfr_be(&r, 8);
	(void)jfr_be(&r, 3); /* file state, reserved */
	flags = jfr_u8(&r);
	c->compressed = flags & 1;
	r.pos = start + 8;
	if (size < HEADER || size > len - start) {
		jfr_fail(&r, "the chunk's size %llu runs past the file's end (%zu bytes left)",
		         (unsigned long long)size, len - start);
		return -1;
	}
	if (meta < HEADER || meta >= size || cpoff >= size) {
		r.pos = start + 24;
		jfr_fail(&r, "the metadata offset %llu lies outside the chunk", (unsigned long long)meta);
		return -1;
	}
	if (c->tps == 0) {
		r.pos = start + 56;
		jfr_fail(&r, "zero ticks per second");
		return -1;
	}
	c->end = start + (size_t)size;
	if ((rc = read_metadata(c, start + (size_t)meta)) < 0)
		return rc;
	return read_pools(c);
}

void jfr_chunk_free(struct jfr_chunk *c)
{
	for (size_t i = 0; i < c->nstrs; i++)
		c->h->free(c->strs[i]);
	c->h->free(c->strs);
	c->h->free(c->cls);
	c->h->free(c->byid);
	c->h->free(c->f);
	c->h->free(c->pool);
}

static size_t put_utf8(char *out, size_t at, size_t cap, uint32_t cp)
{
	char b[4];
	size_t n;

	if (cp < 0x80) { b[0] = (char)cp; n = 1; }
	else if (cp < 0x800) { b[0] = (char)(0xc0 | cp >> 6); b[1] = (char)(0x80 | (cp & 0x3f)); n = 2; }
	else { b[0] = (char)(0xe0 | (cp >> 12 & 0xf)); b[1] = (char)(0x80 | (cp >> 6 & 0x3f));
	       b[2] = (char)(0x80 | (cp & 0x3f)); n = 3; }
	if (at + n >= cap)
		return at;
	memcpy(out + at, b, n);
	return at + n;
}

size_t jfr_text(struct jfr_chunk *c, const struct jfr_val *v, int string_cls, char *out, size_t cap)
{
	size_t n = 0;

	if (cap == 0)
		return 0;
	if (v->kind == 3) {
		/* a java.lang.String pool entry */
		size_t off = jfr_pool_find(c, string_cls, v->u);
		struct jfr_rd r = { c, off, c->end };
		struct jfr_val s;
		if (!off)
			return 0;
		read_string(&r, &s);
		if (c->err || s.kind != 2)
			return 0;
		return jfr_text(c, &s, -1, out, cap);
	}
	if (v->kind != 2)
		return 0;
	if (v->enc == 3) {
		n = v->len < cap - 1 ? v->len : cap - 1;
		if (n)
			memcpy(out, v->s, n);
	} else if (v->enc == 5) {
		for (size_t i = 0; i < v->len; i++)
			n = put_utf8(out, n, cap, v->s[i]);
	} else if (v->enc == 4) {
		struct jfr_rd r = { c, (size_t)(v->s - c->buf), (size_t)(v->s - c->buf) + v->len };
		while (r.pos < r.end && !c->err) {
			uint32_t ch = jfr_int(&r) & 0xffff;
			n = put_utf8(out, n, cap, ch);
		}
	}
	return n;
}
