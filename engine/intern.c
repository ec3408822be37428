/*
 * Frame interning: every distinct frame name is stored once in an arena and
 * named by a dense 32-bit id.  Lookups hash the bytes and probe an
 * open-addressing table (linear probing, load <= 1/2) whose slots hold the
 * name's 32-bit hash beside its id, so a probe reads a frame only when the
 * hashes agree: one cache miss in the table, one in the frame, one in the
 * name, instead of one per probed slot.
 */
#include <string.h>

#include "fk.h"

#define CHUNK (256 * 1024)

static const char *const suffixes[] = { "", "_[k]", "_[j]", "_[i]", "_[w]" };

const char *fk_annot_suffix(int annot)
{
	if (annot < 0 || annot > FK_ANNOT_WAKER)
		return "";
	return suffixes[annot];
}

int fk_annot_of(const char *name, size_t len)
{
	if (len < 4 || name[len - 4] != '_' || name[len - 3] != '[' || name[len - 1] != ']')
		return FK_ANNOT_NONE;
	switch (name[len - 2]) {
	case 'k': return FK_ANNOT_KERNEL;
	case 'j': return FK_ANNOT_JIT;
	case 'i': return FK_ANNOT_INLINE;
	case 'w': return FK_ANNOT_WAKER;
	}
	return FK_ANNOT_NONE;
}

int fk_intern_init(struct fk_intern *in)
{
	memset(in, 0, sizeof *in);
	in->mask = 1023;
	in->slots = fk_calloc((size_t)in->mask + 1, sizeof *in->slots);
	return in->slots ? 0 : FK_ERR_NOMEM;
}

void fk_intern_free(struct fk_intern *in)
{
	size_t i;

	for (i = 0; i < in->nchunks; i++)
		fk_free(in->chunks[i]);
	for (i = 0; i < in->ncolours; i++)
		fk_free(in->colours[i]);
	fk_free(in->chunks);
	fk_free(in->colours);
	fk_free(in->frames);
	fk_free(in->slots);
	memset(in, 0, sizeof *in);
}

static char *arena_alloc(struct fk_intern *in, size_t n)
{
	char *c, **v;

	if (in->nchunks == 0 || in->chunk_cap - in->chunk_used < n) {
		size_t cap = n > CHUNK ? n : CHUNK;
		c = fk_malloc(cap);
		if (!c)
			return NULL;
		v = fk_realloc(in->chunks, (in->nchunks + 1) * sizeof *v);
		if (!v) {
			fk_free(c);
			return NULL;
		}
		in->chunks = v;
		in->chunks[in->nchunks++] = c;
		in->chunk_used = 0;
		in->chunk_cap = cap;
	}
	c = in->chunks[in->nchunks - 1] + in->chunk_used;
	in->chunk_used += n;
	return c;
}

#define SLOT(h, id) ((uint64_t)(h) << 32 | ((uint64_t)(id) + 1))
#define SLOT_HASH(e) ((uint32_t)((e) >> 32))
#define SLOT_ID(e) ((uint32_t)(e) - 1)

static int grow_slots(struct fk_intern *in)
{
	uint32_t nmask = in->mask * 2 + 1, i, j;
	uint64_t *ns = fk_calloc((size_t)nmask + 1, sizeof *ns);

	if (!ns)
		return FK_ERR_NOMEM;
	for (i = 0; i <= in->mask; i++) {
		uint64_t e = in->slots[i];
		if (!e)
			continue;
		j = SLOT_HASH(e) & nmask;
		while (ns[j])
			j = (j + 1) & nmask;
		ns[j] = e;
	}
	fk_free(in->slots);
	in->slots = ns;
	in->mask = nmask;
	return 0;
}

static inline uint32_t probe(const struct fk_intern *in, const char *name, size_t len,
                             uint32_t h, bool *found)
{
	uint32_t j = h & in->mask;
	uint64_t e;

	while ((e = in->slots[j]) != 0) {
		if (SLOT_HASH(e) == h) {
			const struct fk_frame_info *f = &in->frames[SLOT_ID(e)];
			if (f->len == len && memcmp(f->name, name, len) == 0) {
				*found = true;
				return j;
			}
		}
		j = (j + 1) & in->mask;
	}
	*found = false;
	return j;
}

fk_frame_t fk_intern_find(const struct fk_intern *in, const char *name, size_t len)
{
	bool found;
	uint32_t h = (uint32_t)fk_hash(name, len);
	uint32_t j = probe(in, name, len, h, &found);

	return found ? SLOT_ID(in->slots[j]) : FK_FRAME_NONE;
}

uint32_t fk_intern_hash(const char *name, size_t len)
{
	return (uint32_t)fk_hash(name, len);
}

void fk_intern_prefetch(const struct fk_intern *in, uint32_t h, int stage)
{
	const uint64_t *slot = &in->slots[h & in->mask];

	if (stage == 0) {
		__builtin_prefetch(slot);
		return;
	}
	if (*slot == 0 || SLOT_HASH(*slot) != h)
		return;
	if (stage == 1)
		__builtin_prefetch(&in->frames[SLOT_ID(*slot)]);
	else
		__builtin_prefetch(in->frames[SLOT_ID(*slot)].name);
}

fk_frame_t fk_intern(struct fk_intern *in, const char *name, size_t len)
{
	if (len > UINT32_MAX / 2)
		return FK_FRAME_NONE;
	return fk_intern_hashed(in, name, len, fk_intern_hash(name, len));
}

fk_frame_t fk_intern_hashed(struct fk_intern *in, const char *name, size_t len, uint32_t h)
{
	bool found;
	uint32_t j, id;
	struct fk_frame_info *f;
	char *s;

	if (len > UINT32_MAX / 2)
		return FK_FRAME_NONE;
	j = probe(in, name, len, h, &found);
	if (found)
		return SLOT_ID(in->slots[j]);
	if (((size_t)in->nframes + 1) * 2 > in->mask) {
		if (grow_slots(in) < 0)
			return FK_FRAME_NONE;
		j = probe(in, name, len, h, &found);
	}
	if (in->nframes >= UINT32_MAX - 2)
		return FK_FRAME_NONE;
	if (in->nframes == in->capframes) {
		uint32_t cap = in->capframes ? in->capframes * 2 : 256;
		struct fk_frame_info *nf = fk_realloc(in->frames, (size_t)cap * sizeof *nf);
		if (!nf)
			return FK_FRAME_NONE;
		in->frames = nf;
		in->capframes = cap;
	}
	s = arena_alloc(in, len + 1);
	if (!s)
		return FK_FRAME_NONE;
	memcpy(s, name, len);
	s[len] = '\0';
	id = in->nframes++;
	f = &in->frames[id];
	f->name = s;
	f->len = (uint32_t)len;
	f->annot = (uint8_t)fk_annot_of(name, len);
	f->display_len = f->len - (f->annot ? 4 : 0);
	f->colour = -1;
	f->module = FK_FRAME_NONE;
	in->slots[j] = SLOT(h, id);
	return id;
}

fk_frame_t fk_intern_annot(struct fk_intern *in, const char *name, size_t len, int annot)
{
	char small[512];
	const char *suf = fk_annot_suffix(annot);
	size_t sl = strlen(suf);
	char *tmp;
	fk_frame_t id;

	if (sl == 0 || (len >= sl && memcmp(name + len - sl, suf, sl) == 0))
		return fk_intern(in, name, len);
	if (len + sl <= sizeof small) {
		memcpy(small, name, len);
		memcpy(small + len, suf, sl);
		return fk_intern(in, small, len + sl);
	}
	tmp = fk_malloc(len + sl);
	if (!tmp)
		return FK_FRAME_NONE;
	memcpy(tmp, name, len);
	memcpy(tmp + len, suf, sl);
	id = fk_intern(in, tmp, len + sl);
	fk_free(tmp);
	return id;
}

int fk_intern_set_colour(struct fk_intern *in, fk_frame_t f, const char *colour)
{
	size_t i;
	char **v;

	if (f >= in->nframes)
		return FK_ERR_INTERNAL;
	if (!colour) {
		in->frames[f].colour = -1;
		return 0;
	}
	for (i = 0; i < in->ncolours; i++)
		if (strcmp(in->colours[i], colour) == 0)
			break;
	if (i == in->ncolours) {
		v = fk_realloc(in->colours, (in->ncolours + 1) * sizeof *v);
		if (!v)
			return FK_ERR_NOMEM;
		in->colours = v;
		if (!(v[i] = fk_strdup(colour)))
			return FK_ERR_NOMEM;
		in->ncolours++;
	}
	in->frames[f].colour = (int32_t)i;
	return 0;
}

const char *fk_intern_colour(const struct fk_intern *in, fk_frame_t f)
{
	if (f >= in->nframes || in->frames[f].colour < 0)
		return NULL;
	return in->colours[in->frames[f].colour];
}
