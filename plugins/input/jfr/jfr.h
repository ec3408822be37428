/*
 * The JFR chunk reader the jfr input plugin uses: one chunk's header, its
 * metadata (every type and its fields), its constant pools indexed by
 * (type, key) -> byte offset, and a metadata-driven decoder of values.
 *
 * Ownership: a struct jfr_chunk borrows the file's bytes (buf, held by the
 * plugin for the chunk's life); what it allocates (classes, fields, the
 * metadata strings, the pool index) is freed by jfr_chunk_free().  Every
 * read is bounds-checked: a failure sets chunk->err with the byte offset
 * (from the file's start) and a sentence, and every later read returns 0.
 */
#ifndef FK_JFR_H
#define FK_JFR_H

#include <stddef.h>
#include <stdint.h>

#include <flamekit/plugin.h>

#include "vector/fkvector.h"

enum jfr_prim {
	JP_STRUCT = 0, JP_BOOL, JP_BYTE, JP_SHORT, JP_CHAR, JP_INT, JP_LONG,
	JP_FLOAT, JP_DOUBLE, JP_STRING,
};

struct jfr_field {
	const char *name;
	uint64_t type;
	int cp, array;
	int cls;             /* index into chunk->cls, -1 when unknown */
};

struct jfr_class {
	uint64_t id;
	const char *name;
	int prim;            /* enum jfr_prim */
	int empty;           /* a struct whose values take no bytes */
	size_t f0, nf;       /* fields f[f0 .. f0 + nf) */
};

struct jfr_id {
	uint64_t id;
	int idx;             /* into chunk->cls */
};

struct jfr_pool_ent {
	uint64_t key;
	uint32_t cls;        /* class index + 1; 0: an empty slot */
	size_t off;          /* the value's first byte in the file */
};

/* A decoded field value: an integer (or a constant-pool key), or text. */
struct jfr_val {
	int kind;            /* 0 none, 1 integer/key, 2 text, 3 string pool key */
	uint64_t u;
	const uint8_t *s;    /* text: s[0 .. len), encoded as enc says */
	size_t len;
	int enc;             /* 3 UTF-8, 4 char array (varints), 5 Latin-1 */
};

struct jfr_chunk {
	const struct fk_host *h;
	const uint8_t *buf;  /* the whole file */
	size_t start, end;   /* this chunk's bytes */
	int compressed;
	uint64_t start_nanos, start_ticks, tps;
	struct jfr_class *cls;
	size_t ncls;
	struct jfr_id *byid; /* the classes' ids, sorted */
	struct jfr_field *f;
	size_t nf;
	char **strs;         /* the metadata's strings, NUL-terminated */
	size_t nstrs;
	struct jfr_pool_ent *pool;
	size_t pool_mask, pool_used;
	int err;
	size_t errat;
	char errmsg[160];
};

/* A cursor over the file's bytes, reporting into its chunk. */
struct jfr_rd {
	struct jfr_chunk *c;
	size_t pos, end;
};

/* The bytes left to read: none once a size field claimed fewer bytes than
 * its own header took (pos past end), never a wrapped-around count. */
static inline size_t jfr_left(const struct jfr_rd *r)
{
	return r->pos < r->end ? r->end - r->pos : 0;
}

void jfr_fail(struct jfr_rd *r, const char *fmt, ...) FK_PRINTF(2, 3);
uint64_t jfr_long(struct jfr_rd *r);
uint32_t jfr_int(struct jfr_rd *r);
uint8_t jfr_u8(struct jfr_rd *r);
uint64_t jfr_be(struct jfr_rd *r, int n);

/* Read the chunk header at `start` of buf[0 .. len), its metadata and
 * its constant pools.  0 or -1 (c->err set). */
int jfr_chunk_open(struct jfr_chunk *c, const struct fk_host *h, const uint8_t *buf, size_t len,
                   size_t start);
void jfr_chunk_free(struct jfr_chunk *c);

/* The class named name, or -1. */
int jfr_class_named(const struct jfr_chunk *c, const char *name);
/* The index (0 .. nf) of cls's field named name, or -1. */
int jfr_field_index(const struct jfr_chunk *c, int cls, const char *name);
/* The offset of pool entry (cls, key), or 0 when absent. */
size_t jfr_pool_find(const struct jfr_chunk *c, int cls, uint64_t key);
/* The offsets of cls's pool entries one by one, in no order: *it starts at
 * 0; 0 when there are no more. */
size_t jfr_pool_next(const struct jfr_chunk *c, int cls, size_t *it);

/* Read one value of class cls at r's cursor into vals[0 .. nvals) (one per
 * top-level field; arrays and nested structs are skipped, not stored).
 * depth guards recursion. */
void jfr_read_struct(struct jfr_rd *r, int cls, struct jfr_val *vals, size_t nvals, int depth);
/* Skip one field's value (its array, its struct). */
void jfr_skip_field(struct jfr_rd *r, const struct jfr_field *f, int depth);

/* Text of v as UTF-8 into out[0 .. cap): its length (cut at cap). */
size_t jfr_text(struct jfr_chunk *c, const struct jfr_val *v, int string_cls, char *out, size_t cap);

/* async-profiler's log (log.c): its profiler.Log events of level WARN or
 * ERROR, over every chunk.  jfr_log_resolve() finds this chunk's types
 * (cls -1 when it has none), jfr_log_event() reads one event at r. */
#define JFR_LOG_FIELDS 16
struct jfr_log {
	int cls, level_cls, string_cls, f_level, f_msg, f_name;
	uint64_t id;         /* cls's type id */
	uint64_t n;          /* the warnings and errors */
	char first[256];     /* the first of them: "[LEVEL] message" */
};
void jfr_log_resolve(struct jfr_log *l, const struct jfr_chunk *c);
void jfr_log_event(struct jfr_log *l, struct jfr_rd *r);

#endif
