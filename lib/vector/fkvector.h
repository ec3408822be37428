/*
 * The one growable array, after nbdkit's common/utils/vector.h: a typed
 * vector from a macro, header-only, so the engine, lib/ and every plugin
 * module can use it without linking anything.
 *
 *   FK_VECTOR(frames, struct frame);     defines struct frames { ptr, len, cap }
 *   struct frames v = { 0 };             empty: no allocation yet
 *   if (frames_append(&v, f, h->realloc) < 0) ...
 *   frames_reset(&v, h->free);
 *
 * Memory comes from the realloc the caller names at each growing call: the
 * engine passes fk_realloc, a plugin its host's realloc, so the
 * allocation-failure injection of tests/faults.sh reaches every vector.
 * The vector owns ptr; whoever owns the struct calls name_reset (or takes
 * ptr over and frees it with the matching free).  A pointer into ptr stays
 * valid until the next call that may grow the vector.
 *
 * Growing calls return 0, or -1 (FK_ERR_NOMEM) when the memory cannot be
 * had or len + n items would not fit in a size_t of bytes; on failure the
 * vector is left exactly as it was.  Capacity doubles (16 items at first)
 * so appends are amortised O(1); name_reserve_exact asks for no more than
 * it is told.
 */
#ifndef FK_VECTOR_H
#define FK_VECTOR_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef void *fk_vector_realloc_fn(void *p, size_t n);
typedef void fk_vector_free_fn(void *p);

/* The capacity a vector starts with on its first growth. */
#define FK_VECTOR_FIRST 16

/* The untyped core: makes room for `need` items of `size` bytes in *ptr,
 * whose capacity is *cap items.  exact: grow to `need` and no more; else
 * to the larger of need and twice *cap (FK_VECTOR_FIRST at first).  0, or
 * -1 with *ptr and *cap untouched. */
static inline int fk_vector_grow_(void **ptr, size_t *cap, size_t need, size_t size, int exact,
				  fk_vector_realloc_fn *re)
{
	size_t nc;
	void *np;

	if (need <= *cap)
		return 0;
	if (size == 0 || need > SIZE_MAX / size)
		return -1;
	nc = need;
	if (!exact) {
		size_t dbl = *cap ? (*cap > SIZE_MAX / 2 ? SIZE_MAX : *cap * 2) : FK_VECTOR_FIRST;

		if (dbl > SIZE_MAX / size)
			dbl = SIZE_MAX / size;
		if (dbl > nc)
			nc = dbl;
	}
	if (!(np = re(*ptr, nc * size)))
		return -1;
	*ptr = np;
	*cap = nc;
	return 0;
}

/* For code that keeps its own (pointer, capacity) pair, as a text buffer
 * with its length beside it: room for `need` items of `size` bytes at *p,
 * capacity *cap items, grown by doubling.  0, or -1 with both untouched.
 * Called as fk_vector_grow((void **)&x, &cap, n + 1, sizeof *x, re). */
static inline int fk_vector_grow(void **p, size_t *cap, size_t need, size_t size,
				 fk_vector_realloc_fn *re)
{
	return fk_vector_grow_(p, cap, need, size, 0, re);
}

/* Room for n more items than len: 0, or -1 (overflow or no memory). */
static inline int fk_vector_reserve_(void **ptr, size_t *cap, size_t len, size_t n, size_t size,
				     int exact, fk_vector_realloc_fn *re)
{
	if (n > SIZE_MAX - len)
		return -1;
	return fk_vector_grow_(ptr, cap, len + n, size, exact, re);
}

#define FK_VECTOR(name, type)                                                               \
	struct name {                                                                       \
		type *ptr;  /* the items, NULL while cap is 0 */                            \
		size_t len; /* how many are in use */                                       \
		size_t cap; /* how many fit */                                              \
	};                                                                                  \
                                                                                            \
	/* Room for n more items, growing by doubling.  Length unchanged. */                \
	static inline __attribute__((unused)) int name##_reserve(struct name *v, size_t n,  \
								 fk_vector_realloc_fn *re)  \
	{                                                                                   \
		return fk_vector_reserve_((void **)&v->ptr, &v->cap, v->len, n, sizeof(type), \
					  0, re);                                           \
	}                                                                                   \
                                                                                            \
	/* Room for n more items, and (when it must grow) not one more. */                  \
	static inline __attribute__((unused)) int name##_reserve_exact(                     \
		struct name *v, size_t n, fk_vector_realloc_fn *re)                         \
	{                                                                                   \
		return fk_vector_reserve_((void **)&v->ptr, &v->cap, v->len, n, sizeof(type), \
					  1, re);                                           \
	}                                                                                   \
                                                                                            \
	/* Put elem at index i (0 <= i <= len), moving the rest up one. */                  \
	static inline __attribute__((unused)) int name##_insert(                            \
		struct name *v, type elem, size_t i, fk_vector_realloc_fn *re)              \
	{                                                                                   \
		if (i > v->len || name##_reserve(v, 1, re) < 0)                             \
			return -1;                                                          \
		memmove(&v->ptr[i + 1], &v->ptr[i], (v->len - i) * sizeof(type));          \
		v->ptr[i] = elem;                                                           \
		v->len++;                                                                   \
		return 0;                                                                   \
	}                                                                                   \
                                                                                            \
	/* Add elem at the end. */                                                          \
	static inline __attribute__((unused)) int name##_append(struct name *v, type elem,  \
								fk_vector_realloc_fn *re)   \
	{                                                                                   \
		if (v->len == v->cap && name##_reserve(v, 1, re) < 0)                       \
			return -1;                                                          \
		v->ptr[v->len++] = elem;                                                    \
		return 0;                                                                   \
	}                                                                                   \
                                                                                            \
	/* Add the n items at p (which must not point into the vector). */                  \
	static inline __attribute__((unused)) int name##_append_n(                          \
		struct name *v, const type *p, size_t n, fk_vector_realloc_fn *re)          \
	{                                                                                   \
		if (n == 0)                                                                 \
			return 0;                                                           \
		if (name##_reserve(v, n, re) < 0)                                           \
			return -1;                                                          \
		memcpy(&v->ptr[v->len], p, n * sizeof(type));                              \
		v->len += n;                                                                \
		return 0;                                                                   \
	}                                                                                   \
                                                                                            \
	/* Free the items' memory; the vector is empty again. */                            \
	static inline __attribute__((unused)) void name##_reset(struct name *v,             \
								fk_vector_free_fn *fr)      \
	{                                                                                   \
		fr(v->ptr);                                                                 \
		v->ptr = NULL;                                                              \
		v->len = v->cap = 0;                                                        \
	}                                                                                   \
	struct name

#endif
