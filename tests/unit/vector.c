/* Unit tests of the one growable array (lib/vector/fkvector.h): doubling
 * growth, exact reserves, insertion, and that a failed growth (no memory,
 * from the engine's injection, or a count whose bytes overflow a size_t)
 * returns -1 and leaves the vector as it was. */
#include "testlib.h"

#include "vector/fkvector.h"

FK_VECTOR(ints, int);

struct big {
	char b[4096];
};
FK_VECTOR(bigs, struct big);

/* A realloc that records the sizes asked of it. */
static size_t asked[64];
static size_t nasked;

static void *spy_realloc(void *p, size_t n)
{
	if (nasked < sizeof asked / sizeof asked[0])
		asked[nasked] = n;
	nasked++;
	if (n > (size_t)1 << 40)
		return NULL; /* as a real allocator would, without asking one */
	return fk_realloc(p, n);
}

static int reset_spy(void **state)
{
	(void)state;
	nasked = 0;
	fk_alloc_fail_after(-1);
	return 0;
}

static void test_growth(void **state)
{
	struct ints v = { 0 };

	(void)state;
	assert_null(v.ptr);
	assert_int_equal(ints_append(&v, 7, spy_realloc), 0);
	assert_int_equal(v.len, 1);
	assert_int_equal(v.cap, FK_VECTOR_FIRST);
	assert_int_equal(nasked, 1);
	assert_int_equal(asked[0], FK_VECTOR_FIRST * sizeof(int));
	for (int i = 1; i < FK_VECTOR_FIRST; i++)
		assert_int_equal(ints_append(&v, i, spy_realloc), 0);
	assert_int_equal(nasked, 1); /* no growth while it fits */
	assert_int_equal(ints_append(&v, 99, spy_realloc), 0);
	assert_int_equal(v.cap, 2 * FK_VECTOR_FIRST);
	assert_int_equal(nasked, 2);
	assert_int_equal(asked[1], 2 * FK_VECTOR_FIRST * sizeof(int));
	/* A reserve larger than doubling gives: exactly what was asked. */
	assert_int_equal(ints_reserve(&v, 1000, spy_realloc), 0);
	assert_int_equal(v.cap, v.len + 1000);
	assert_int_equal(v.ptr[0], 7);
	assert_int_equal(v.ptr[FK_VECTOR_FIRST], 99);
	ints_reset(&v, fk_free);
	assert_null(v.ptr);
	assert_int_equal(v.len, 0);
	assert_int_equal(v.cap, 0);
}

static void test_reserve_exact(void **state)
{
	struct ints v = { 0 };

	(void)state;
	assert_int_equal(ints_reserve_exact(&v, 5, spy_realloc), 0);
	assert_int_equal(v.cap, 5);
	assert_int_equal(v.len, 0);
	assert_int_equal(asked[0], 5 * sizeof(int));
	assert_int_equal(ints_reserve_exact(&v, 5, spy_realloc), 0);
	assert_int_equal(ints_reserve_exact(&v, 0, spy_realloc), 0);
	assert_int_equal(nasked, 1); /* it fitted: no call */
	for (int i = 0; i < 5; i++)
		assert_int_equal(ints_append(&v, i, spy_realloc), 0);
	assert_int_equal(nasked, 1);
	assert_int_equal(ints_reserve_exact(&v, 2, spy_realloc), 0);
	assert_int_equal(v.cap, 7);
	assert_int_equal(asked[1], 7 * sizeof(int));
	ints_reset(&v, fk_free);
}

static void test_append_many(void **state)
{
	struct ints v = { 0 };
	int block[3] = { -1, -2, -3 };
	size_t n = 100000;

	(void)state;
	for (size_t i = 0; i < n; i++)
		assert_int_equal(ints_append(&v, (int)i * 3, spy_realloc), 0);
	assert_int_equal(v.len, n);
	assert_true(v.cap >= n && v.cap < 2 * n);
	/* 16 doubled to 131072 takes 14 calls: growth is geometric. */
	assert_int_equal(nasked, 14);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(v.ptr[i], (int)i * 3);
	assert_int_equal(ints_append_n(&v, block, 3, spy_realloc), 0);
	assert_int_equal(ints_append_n(&v, block, 0, spy_realloc), 0);
	assert_int_equal(v.len, n + 3);
	assert_int_equal(v.ptr[n + 2], -3);
	ints_reset(&v, fk_free);
}

static void test_insert(void **state)
{
	struct ints v = { 0 };

	(void)state;
	assert_int_equal(ints_insert(&v, 2, 0, spy_realloc), 0);
	assert_int_equal(ints_insert(&v, 0, 0, spy_realloc), 0);
	assert_int_equal(ints_insert(&v, 1, 1, spy_realloc), 0);
	assert_int_equal(ints_insert(&v, 3, 3, spy_realloc), 0);
	assert_int_equal(ints_insert(&v, 9, 5, spy_realloc), -1); /* past the end */
	assert_int_equal(v.len, 4);
	for (int i = 0; i < 4; i++)
		assert_int_equal(v.ptr[i], i);
	ints_reset(&v, fk_free);
}

/* Counts whose bytes do not fit a size_t are refused before any realloc. */
static void test_overflow(void **state)
{
	struct bigs b = { 0 };
	struct ints v = { 0 };

	(void)state;
	assert_int_equal(bigs_reserve(&b, SIZE_MAX / sizeof(struct big) + 1, spy_realloc), -1);
	assert_int_equal(bigs_reserve_exact(&b, SIZE_MAX / 2, spy_realloc), -1);
	assert_int_equal(nasked, 0);
	assert_null(b.ptr);
	assert_int_equal(b.cap, 0);
	assert_int_equal(ints_append(&v, 1, spy_realloc), 0);
	/* len + n itself wraps */
	assert_int_equal(ints_reserve(&v, SIZE_MAX, spy_realloc), -1);
	assert_int_equal(ints_reserve_exact(&v, SIZE_MAX - 0, spy_realloc), -1);
	assert_int_equal(nasked, 1);
	assert_int_equal(v.len, 1);
	assert_int_equal(v.cap, FK_VECTOR_FIRST);
	assert_int_equal(v.ptr[0], 1);
	/* Doubling past the largest size is capped, the need still served. */
	{
		size_t cap = SIZE_MAX / 2 + 1, need = cap + 1;
		void *p = NULL;

		assert_int_equal(fk_vector_grow(&p, &cap, need, 1, spy_realloc), -1);
		assert_int_equal(nasked, 2);
		assert_int_equal(asked[1], SIZE_MAX); /* not a wrapped 0 */
		assert_int_equal(cap, SIZE_MAX / 2 + 1);
	}
	ints_reset(&v, fk_free);
}

/* An allocation failure from the engine's injection: -1, and the items,
 * length, capacity and pointer are those of before; later growth works. */
static void test_failure_intact(void **state)
{
	struct ints v = { 0 };
	int *before;

	(void)state;
	for (int i = 0; i < FK_VECTOR_FIRST; i++)
		assert_int_equal(ints_append(&v, i, fk_realloc), 0);
	before = v.ptr;
	fk_alloc_fail_after(0);
	assert_int_equal(ints_append(&v, 100, fk_realloc), -1);
	assert_int_equal(ints_insert(&v, 100, 0, fk_realloc), -1);
	assert_int_equal(ints_reserve(&v, 1, fk_realloc), -1);
	assert_int_equal(ints_reserve_exact(&v, 1, fk_realloc), -1);
	assert_int_equal(ints_append_n(&v, before, 2, fk_realloc), -1);
	assert_ptr_equal(v.ptr, before);
	assert_int_equal(v.len, FK_VECTOR_FIRST);
	assert_int_equal(v.cap, FK_VECTOR_FIRST);
	for (int i = 0; i < FK_VECTOR_FIRST; i++)
		assert_int_equal(v.ptr[i], i);
	/* What fits needs no memory, failure or not. */
	assert_int_equal(ints_reserve(&v, 0, fk_realloc), 0);
	fk_alloc_fail_after(-1);
	assert_int_equal(ints_append(&v, 100, fk_realloc), 0);
	assert_int_equal(v.ptr[FK_VECTOR_FIRST], 100);
	ints_reset(&v, fk_free);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_growth, reset_spy),
		cmocka_unit_test_setup(test_reserve_exact, reset_spy),
		cmocka_unit_test_setup(test_append_many, reset_spy),
		cmocka_unit_test_setup(test_insert, reset_spy),
		cmocka_unit_test_setup(test_overflow, reset_spy),
		cmocka_unit_test_setup(test_failure_intact, reset_spy),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
