/*
 * Sample attributes (ABI 1.3): what an input knows about a sample beyond
 * struct fk_sample (pprof labels, goroutine labels), and thread names.
 *
 * Every key, value and thread name is interned once in a string table, and
 * every distinct attribute list once as an array of struct fk_attr whose
 * pointers go into that table.  A logged sample then holds two 4-byte ids
 * (its list and its thread name), never copies: a profile of a million
 * samples with four distinct label sets keeps four lists.  Since strings
 * are interned, two lists are equal exactly when their pointers are, so a
 * list is hashed and compared by pointers.
 *
 * The table is set up on first use: a profile without attributes costs
 * nothing.
 */
#include <string.h>

#include "fk.h"
#include "vector/fkvector.h"

static int attrtab_ready(struct fk_attrtab *t)
{
	if (t->ready)
		return 0;
	if (fk_intern_init(&t->strs) < 0)
		return FK_ERR_NOMEM;
	t->start = fk_malloc(64 * sizeof *t->start);
	t->slots = fk_calloc(64, sizeof *t->slots);
	if (!t->start || !t->slots) {
		fk_free(t->start);
		fk_free(t->slots);
		t->start = NULL;
		t->slots = NULL;
		fk_intern_free(&t->strs);
		return FK_ERR_NOMEM;
	}
	t->caplists = 63;
	t->mask = 63;
	t->start[0] = 0;
	t->start[1] = 0;  /* list 0: the empty list */
	t->nlists = 1;
	t->ready = true;
	return 0;
}

void fk_attrtab_free(struct fk_attrtab *t)
{
	if (t->ready)
		fk_intern_free(&t->strs);
	fk_free(t->attrs);
	fk_free(t->start);
	fk_free(t->slots);
	memset(t, 0, sizeof *t);
}

fk_frame_t fk_attrs_string(struct fk_attrtab *t, const char *s, size_t n)
{
	if (attrtab_ready(t) < 0)
		return FK_FRAME_NONE;
	return fk_intern(&t->strs, s, n);
}

const char *fk_attrs_string_text(const struct fk_attrtab *t, fk_frame_t id, size_t *len)
{
	if (!t->ready || id >= t->strs.nframes) {
		*len = 0;
		return NULL;
	}
	*len = t->strs.frames[id].len;
	return t->strs.frames[id].name;
}

static uint32_t list_hash(const struct fk_attr *a, size_t n)
{
	return (uint32_t)fk_hash(a, n * sizeof *a);
}

static bool list_equal(const struct fk_attrtab *t, uint32_t id, const struct fk_attr *a, size_t n)
{
	return t->start[id + 1] - t->start[id] == n &&
	       memcmp(t->attrs + t->start[id], a, n * sizeof *a) == 0;
}

static int grow_lists(struct fk_attrtab *t, size_t n)
{
	/* start[] holds uint32_t offsets into attrs */
	if (t->nattrs + n > UINT32_MAX ||
	    fk_vector_grow((void **)&t->attrs, &t->capattrs, t->nattrs + n, sizeof *t->attrs,
	                   fk_realloc) < 0)
		return FK_ERR_NOMEM;
	if (t->nlists == t->caplists) {
		uint32_t *v = fk_realloc(t->start, ((size_t)t->caplists * 2 + 1) * sizeof *v);
		if (!v)
			return FK_ERR_NOMEM;
		t->start = v;
		t->caplists *= 2;
	}
	/* keep the hash table at most half full */
	if ((t->nlists + 1) * 2 > t->mask + 1) {
		uint32_t nmask = t->mask * 2 + 1;
		uint32_t *ns = fk_calloc((size_t)nmask + 1, sizeof *ns);
		if (!ns)
			return FK_ERR_NOMEM;
		for (uint32_t id = 1; id < t->nlists; id++) {
			uint32_t j = list_hash(t->attrs + t->start[id], t->start[id + 1] - t->start[id]) & nmask;
			while (ns[j])
				j = (j + 1) & nmask;
			ns[j] = id;
		}
		fk_free(t->slots);
		t->slots = ns;
		t->mask = nmask;
	}
	return 0;
}

/* Intern a list whose strings are already interned (pointers into strs). */
static uint32_t intern_list(struct fk_attrtab *t, const struct fk_attr *a, size_t n)
{
	uint32_t h = list_hash(a, n), j = h & t->mask, id;

	while ((id = t->slots[j]) != 0) {
		if (list_equal(t, id, a, n))
			return id;
		j = (j + 1) & t->mask;
	}
	if (grow_lists(t, n) < 0)
		return FK_ATTRS_NONE;
	id = t->nlists++;
	memcpy(t->attrs + t->nattrs, a, n * sizeof *a);
	t->nattrs += n;
	t->start[id + 1] = (uint32_t)t->nattrs;
	/* the table may have grown: probe again for a free slot */
	for (j = h & t->mask; t->slots[j]; j = (j + 1) & t->mask)
		;
	t->slots[j] = id;
	return id;
}

uint32_t fk_attrs_intern(struct fk_attrtab *t, const struct fk_attr *a, size_t n)
{
	struct fk_attr stack[16], *v = n <= 16 ? stack : NULL;
	uint32_t id = FK_ATTRS_NONE;

	if (n == 0)
		return 0;
	if (attrtab_ready(t) < 0 || (!v && !(v = fk_malloc(n * sizeof *v))))
		return FK_ATTRS_NONE;
	for (size_t i = 0; i < n; i++) {
		fk_frame_t k = fk_intern(&t->strs, a[i].key, a[i].key_len);
		fk_frame_t x = fk_intern(&t->strs, a[i].value, a[i].value_len);
		if (k == FK_FRAME_NONE || x == FK_FRAME_NONE)
			goto out;
		/* only pointers and lengths go into the list: zero the padding
		 * (none on LP64, but memcmp and the hash read every byte) */
		memset(&v[i], 0, sizeof v[i]);
		v[i].key = t->strs.frames[k].name;
		v[i].key_len = t->strs.frames[k].len;
		v[i].value = t->strs.frames[x].name;
		v[i].value_len = t->strs.frames[x].len;
	}
	id = intern_list(t, v, n);
out:
	if (v != stack)
		fk_free(v);
	return id;
}

size_t fk_attrs_get(const struct fk_attrtab *t, uint32_t id, const struct fk_attr **out)
{
	if (id == 0 || id == FK_ATTRS_NONE || !t->ready || id >= t->nlists) {
		*out = NULL;
		return 0;
	}
	*out = t->attrs + t->start[id];
	return t->start[id + 1] - t->start[id];
}

const char *fk_attrs_find(const struct fk_attr *a, size_t n, const char *key, size_t key_len,
                          size_t *len)
{
	for (size_t i = 0; i < n; i++)
		if (a[i].key_len == key_len && memcmp(a[i].key, key, key_len) == 0) {
			*len = a[i].value_len;
			return a[i].value;
		}
	return NULL;
}
