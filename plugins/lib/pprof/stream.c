/*
 * A profile.proto read field by field (fk_pprof.h, struct fk_pprof_data):
 * the Profile message's top-level fields come from a reader over the
 * host's input (inflated by the engine when the file is gzip), each
 * submessage unpacked by protobuf-c on its own and kept in a compact
 * form, so neither the inflated file nor the whole decoded message is
 * ever held: a 123 MB profile decoded whole held about 2 GB.  Samples come
 * first in the files Go writes, before the locations they name, so each
 * sample's bytes are kept as they are and unpacked one at a time once the
 * tables are known (fk_pprof_sample).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "fk_pprof.h"
#include "vector/fkvector.h"

struct rd {
	const struct fk_host *h;
	struct fk_input *in;
	struct fk_pprof_alloc pa;
	unsigned char buf[65536];
	size_t pos, len;
	int eof;
	uint64_t off;             /* bytes consumed */
	uint64_t total;           /* bytes read from the input */
	const struct fk_input_limit *lim;
	unsigned char *scratch;   /* one submessage */
	size_t cap_scratch;
};

/* 0 with bytes buffered, 1 at the end of the input, or a negative status. */
static int refill(struct rd *r)
{
	ssize_t n;

	if (r->pos < r->len)
		return 0;
	if (r->eof)
		return 1;
	n = r->h->read(r->in, r->buf, sizeof r->buf);
	if (n < 0)
		return (int)n;
	if (n == 0) {
		r->eof = 1;
		return 1;
	}
	r->pos = 0;
	r->len = (size_t)n;
	r->total += (uint64_t)n;
	if (r->total > r->lim->bytes)
		return fk_limit_exceeded(r->h, r->in, r->lim);
	return 0;
}

static int damaged(struct rd *r, uint64_t at)
{
	return r->h->input_error(r->in, 0, "not a pprof profile: byte %" PRIu64 " does not decode as "
	                         "part of a profile.proto message (truncated or corrupt)", at);
}

/* A varint: 0, 1 at the end of the input before its first byte (only
 * when `eof_ok`), or a negative status (reported). */
static int varint(struct rd *r, uint64_t *v, int eof_ok, uint64_t at)
{
	int rc;

	*v = 0;
	for (int sh = 0; sh < 64; sh += 7) {
		unsigned char b;
		if ((rc = refill(r)) < 0)
			return rc;
		if (rc == 1)
			return sh == 0 && eof_ok ? 1 : damaged(r, at);
		b = r->buf[r->pos++];
		r->off++;
		*v |= (uint64_t)(b & 0x7f) << sh;
		if (!(b & 0x80))
			return 0;
	}
	return damaged(r, at);
}

/* n bytes into dst (NULL: skipped). */
static int bytes(struct rd *r, unsigned char *dst, uint64_t n, uint64_t at)
{
	int rc;

	while (n) {
		size_t k;
		if ((rc = refill(r)) < 0)
			return rc;
		if (rc == 1)
			return damaged(r, at);
		k = r->len - r->pos < n ? r->len - r->pos : (size_t)n;
		if (dst) {
			memcpy(dst, r->buf + r->pos, k);
			dst += k;
		}
		r->pos += k;
		r->off += k;
		n -= k;
	}
	return 0;
}

/* Room for one more element after the n in d->arr (of d->cap elements). */
#define GROW(d, arr, n, cap) \
	fk_vector_grow((void **)&(d)->arr, &(d)->cap, (n) + 1, sizeof *(d)->arr, (d)->h->realloc)

/* A length-delimited field's bytes into r->scratch. */
static int field_bytes(struct rd *r, uint64_t n, uint64_t at)
{
	if (n > r->lim->bytes)
		return fk_limit_exceeded(r->h, r->in, r->lim); /* no input we read holds it */
	if (fk_vector_grow((void **)&r->scratch, &r->cap_scratch, (size_t)n + 1, 1, r->h->realloc) < 0)
		return FK_ERR_NOMEM;
	return bytes(r, r->scratch, n, at);
}

static int unpacked(struct rd *r, const void *m, uint64_t at)
{
	if (m)
		return 0;
	return r->pa.failed ? FK_ERR_NOMEM : damaged(r, at);
}

/* One submessage of field f (1, 3, 4, 5) from r->scratch[0..n). */
static int submessage(struct rd *r, struct fk_pprof_data *d, unsigned f, size_t n, uint64_t at)
{
	ProtobufCAllocator *pa = &r->pa.pa;
	int rc;

	if (f == 1) {
		Perftools__Profiles__ValueType *m = perftools__profiles__value_type__unpack(pa, n, r->scratch);
		if ((rc = unpacked(r, m, at)) < 0)
			return rc;
		if ((rc = GROW(d, sample_type, d->n_sample_type, cap_st)) == 0) {
			d->sample_type[d->n_sample_type].type = m->type;
			d->sample_type[d->n_sample_type++].unit = m->unit;
		}
		perftools__profiles__value_type__free_unpacked(m, pa);
	} else if (f == 3) {
		Perftools__Profiles__Mapping *m = perftools__profiles__mapping__unpack(pa, n, r->scratch);
		if ((rc = unpacked(r, m, at)) < 0)
			return rc;
		if ((rc = GROW(d, mapping, d->n_mapping, cap_map)) == 0) {
			struct fk_pprof_map *k = &d->mapping[d->n_mapping++];
			k->id = m->id;
			k->memory_start = m->memory_start;
			k->memory_limit = m->memory_limit;
			k->file_offset = m->file_offset;
			k->filename = m->filename;
			k->build_id = m->build_id;
			k->has_symbols = m->has_functions || m->has_filenames || m->has_line_numbers;
		}
		perftools__profiles__mapping__free_unpacked(m, pa);
	} else if (f == 4) {
		Perftools__Profiles__Location *m = perftools__profiles__location__unpack(pa, n, r->scratch);
		struct fk_pprof_loc *l;
		if ((rc = unpacked(r, m, at)) < 0)
			return rc;
		rc = GROW(d, location, d->n_location, cap_loc);
		if (rc == 0)
			rc = fk_vector_grow((void **)&d->line_func, &d->cap_lines, d->n_line + m->n_line,
			                    sizeof *d->line_func, d->h->realloc);
		if (rc == 0) {
			l = &d->location[d->n_location++];
			l->id = m->id;
			l->mapping_id = m->mapping_id;
			l->address = m->address;
			l->line0 = d->n_line;
			l->nline = m->n_line;
			for (size_t k = 0; k < m->n_line; k++)
				d->line_func[d->n_line++] = m->line[k]->function_id;
		}
		perftools__profiles__location__free_unpacked(m, pa);
	} else {
		Perftools__Profiles__Function *m = perftools__profiles__function__unpack(pa, n, r->scratch);
		if ((rc = unpacked(r, m, at)) < 0)
			return rc;
		if ((rc = GROW(d, function, d->n_function, cap_fn)) == 0) {
			d->function[d->n_function].id = m->id;
			d->function[d->n_function].name = m->name;
			d->function[d->n_function++].system_name = m->system_name;
		}
		perftools__profiles__function__free_unpacked(m, pa);
	}
	return rc;
}

/* A sample's bytes kept as they are, behind their length. */
static int keep_sample(struct rd *r, struct fk_pprof_data *d, uint64_t n, uint64_t at)
{
	unsigned char len[10];
	size_t k = 0;
	uint64_t v = n;
	int rc;

	if (n > r->lim->bytes)
		return fk_limit_exceeded(r->h, r->in, r->lim);
	do {
		len[k++] = (unsigned char)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
	if ((rc = fk_vector_grow((void **)&d->sraw, &d->cap_sraw, d->n_sraw + k + (size_t)n, 1,
	                         d->h->realloc)) < 0)
		return rc;
	memcpy(d->sraw + d->n_sraw, len, k);
	if ((rc = bytes(r, d->sraw + d->n_sraw + k, n, at)) < 0)
		return rc;
	d->n_sraw += k + (size_t)n;
	d->n_sample++;
	return 0;
}

/* One string of the table, NUL-terminated (a NUL inside ends it early, as
 * protobuf-c's strings do for every reader of them). */
static int keep_string(struct rd *r, struct fk_pprof_data *d, uint64_t n, uint64_t at)
{
	int rc;

	if (n > r->lim->bytes)
		return fk_limit_exceeded(r->h, r->in, r->lim);
	if ((rc = fk_vector_grow((void **)&d->strings, &d->cap_strings, d->n_strings + (size_t)n + 1, 1,
	                         d->h->realloc)) < 0 ||
	    (rc = GROW(d, string_off, d->n_string_table, cap_soff)) < 0)
		return rc;
	if ((rc = bytes(r, (unsigned char *)d->strings + d->n_strings, n, at)) < 0)
		return rc;
	d->string_off[d->n_string_table++] = d->n_strings;
	d->strings[d->n_strings + n] = '\0';
	d->n_strings += (size_t)n + 1;
	return 0;
}

/* One top-level field, its tag read. */
static int field(struct rd *r, struct fk_pprof_data *d, uint64_t tag, uint64_t at)
{
	/* wire type per field number 1..14: 2 = length-delimited, 0 = varint */
	static const signed char wt[15] = { -1, 2, 2, 2, 2, 2, 2, 0, 0, 0, 0, 2, 0, 2, 0 };
	unsigned w = (unsigned)(tag & 7);
	uint64_t f = tag >> 3, v;
	int rc;

	if (f == 0 || (f <= 14 && w != (unsigned)wt[f] && !(f == 13 && w == 0)))
		return damaged(r, at);
	switch (w) {
	case 0:
		if ((rc = varint(r, &v, 0, at)) == 0 && f == 14)
			d->default_sample_type = (int64_t)v;
		else if (rc == 0 && f == 9)
			d->time_nanos = (int64_t)v;
		return rc;
	case 1:
		return bytes(r, NULL, 8, at);
	case 5:
		return bytes(r, NULL, 4, at);
	case 2:
		break;
	default: /* groups: not in profile.proto */
		return damaged(r, at);
	}
	if ((rc = varint(r, &v, 0, at)) < 0)
		return rc;
	switch (f) {
	case 1: case 3: case 4: case 5:
		if ((rc = field_bytes(r, v, at)) < 0)
			return rc;
		return submessage(r, d, (unsigned)f, (size_t)v, at);
	case 2:
		return keep_sample(r, d, v, at);
	case 6:
		return keep_string(r, d, v, at);
	default: /* period_type, a packed comment, a field of a later profile.proto */
		if (v > r->lim->bytes)
			return fk_limit_exceeded(r->h, r->in, r->lim);
		return bytes(r, NULL, v, at);
	}
}

int fk_pprof_read(const struct fk_host *h, struct fk_input *in, const struct fk_input_limit *lim,
                  struct fk_pprof_data *d)
{
	struct rd *r = h->alloc(sizeof *r);
	int rc = 0;

	memset(d, 0, sizeof *d);
	d->h = h;
	if (!r)
		return h->input_error(in, 0, "out of memory");
	memset(r, 0, sizeof *r);
	r->h = h;
	r->in = in;
	r->lim = lim;
	fk_pprof_allocator(&r->pa, h);
	for (;;) {
		uint64_t tag, at = r->off;
		if ((rc = varint(r, &tag, 1, at)) != 0)
			break;
		if ((rc = field(r, d, tag, at)) < 0)
			break;
	}
	if (rc == 1)
		rc = 0;
	d->bytes = r->off;
	if (rc == 0 && r->off == 0)
		rc = h->input_error(in, 0, "not a pprof profile: the input is empty");
	if (rc == 0 && d->n_string_table) {
		if (!(d->string_table = h->alloc(d->n_string_table * sizeof *d->string_table)))
			rc = FK_ERR_NOMEM;
		for (size_t i = 0; rc == 0 && i < d->n_string_table; i++)
			d->string_table[i] = d->strings + d->string_off[i];
	}
	if (rc == FK_ERR_NOMEM)
		h->input_error(in, 0, "out of memory");
	h->free(r->scratch);
	h->free(r);
	return rc;
}

Perftools__Profiles__Sample *fk_pprof_sample(struct fk_pprof_data *d, struct fk_pprof_alloc *pa, size_t *off)
{
	uint64_t n = 0;
	size_t i = *off;
	Perftools__Profiles__Sample *s;

	for (int sh = 0; i < d->n_sraw; sh += 7) {
		unsigned char b = d->sraw[i++];
		n |= (uint64_t)(b & 0x7f) << sh;
		if (!(b & 0x80))
			break;
	}
	s = perftools__profiles__sample__unpack(&pa->pa, (size_t)n, d->sraw + i);
	*off = i + (size_t)n;
	return s;
}

void fk_pprof_data_free(struct fk_pprof_data *d)
{
	const struct fk_host *h = d->h;

	if (!h)
		return;
	h->free(d->sample_type);
	h->free(d->location);
	h->free(d->line_func);
	h->free(d->function);
	h->free(d->mapping);
	h->free(d->strings);
	h->free(d->string_off);
	h->free(d->string_table);
	h->free(d->sraw);
	memset(d, 0, sizeof *d);
}
