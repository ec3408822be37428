/*
 * A record's body taken whole.  perf script prints a record as a header
 * line, its frame lines (each indented with a tab or spaces) and an empty
 * line.  Where the input has the whole body buffered (host->input_peek),
 * scan.c takes it at once: one pass over the bytes finds the empty line
 * and counts the lines, instead of a getline() call and a copy per frame
 * line.  Only bodies the line-by-line path would read the same way are
 * taken; anything else (a line not indented, a '\r' that getline() would
 * strip, a NUL it would report, or the buffer ending first) is left to
 * that path.
 *
 * The scan goes 64 bytes at a time with SSE2 (every x86-64 has it): bit
 * masks of '\n' and of '\r' and NUL, byte counters of the '\n's (summed
 * at the end), and at each line start (just after a '\n') its first byte,
 * which tells an empty line from a frame line from anything else.  Other
 * machines get the byte loop, which is also the reference the unit tests
 * hold the vector loop to.
 */
#include <stdint.h>

#include "internal.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* Bytes p[i..n), i at a line start when at_start; count '\n's so far. */
static size_t scan_tail(const char *p, size_t i, size_t n, bool at_start, size_t count,
                        size_t *lines)
{
	for (; i < n; i++) {
		unsigned char c = (unsigned char)p[i];
		if (at_start) {
			if (c == '\n') {
				*lines = count;
				return i;
			}
			if (c != '\t' && c != ' ')
				return SIZE_MAX;
		}
		if (c == '\r' || c == '\0')
			return SIZE_MAX;
		at_start = c == '\n';
		count += at_start;
	}
	return SIZE_MAX;
}

size_t perf_body_scan_bytes(const char *p, size_t n, struct h128 seed, size_t *lines,
                            struct h128 *hv)
{
	size_t len = scan_tail(p, 0, n, true, 0, lines);

	if (len != SIZE_MAX && hv)
		*hv = perf_hash(seed, p, len);
	return len;
}

/* The hash of p[0..len), blocks from i on still to fold into s. */
static struct h128 hash_rest(struct hstate s, const char *p, size_t i, size_t len)
{
	for (; len - i >= 64; i += 64)
		ph_block(&s, p + i);
	return ph_final(s, p + i, len - i, len);
}

#if defined(__SSE2__)
/* The sum of acc's byte counters. */
static inline size_t acc_sum(__m128i acc)
{
	__m128i s = _mm_sad_epu8(acc, _mm_setzero_si128());
	return (size_t)_mm_cvtsi128_si32(s) + (size_t)_mm_cvtsi128_si32(_mm_srli_si128(s, 8));
}

size_t perf_body_scan(const char *p, size_t n, struct h128 seed, size_t *lines, struct h128 *hv)
{
	struct hstate hs = ph_init(seed);
	const __m128i cnl = _mm_set1_epi8('\n'), ccr = _mm_set1_epi8('\r'), zero = _mm_setzero_si128();
	size_t i = 0, count = 0;
	uint64_t start = 1; /* bit 0: the block's first byte starts a line */
	__m128i acc = _mm_setzero_si128();
	unsigned held = 0;  /* blocks in acc: at most 63, so no counter wraps */

	/* Per 64 bytes: masks of '\n' and of '\r' and NUL, and the '\n's
	 * added to acc (a byte counter per lane).  Line starts are rare
	 * (frame lines are ~50 bytes): their first bytes are read one by
	 * one. */
	for (; n - i >= 64; i += 64) {
		const char *b = p + i;
		__m128i v0 = _mm_loadu_si128((const __m128i *)(const void *)b);
		__m128i v1 = _mm_loadu_si128((const __m128i *)(const void *)(b + 16));
		__m128i v2 = _mm_loadu_si128((const __m128i *)(const void *)(b + 32));
		__m128i v3 = _mm_loadu_si128((const __m128i *)(const void *)(b + 48));
		__m128i n0 = _mm_cmpeq_epi8(v0, cnl), n1 = _mm_cmpeq_epi8(v1, cnl);
		__m128i n2 = _mm_cmpeq_epi8(v2, cnl), n3 = _mm_cmpeq_epi8(v3, cnl);
		uint64_t nl = (uint64_t)(unsigned)_mm_movemask_epi8(n0) |
		              (uint64_t)(unsigned)_mm_movemask_epi8(n1) << 16 |
		              (uint64_t)(unsigned)_mm_movemask_epi8(n2) << 32 |
		              (uint64_t)(unsigned)_mm_movemask_epi8(n3) << 48;
		/* '\r' or NUL: rare, so their positions are only worked out
		 * when the 64 bytes have one */
		__m128i b0 = _mm_or_si128(_mm_cmpeq_epi8(v0, ccr), _mm_cmpeq_epi8(v0, zero));
		__m128i b1 = _mm_or_si128(_mm_cmpeq_epi8(v1, ccr), _mm_cmpeq_epi8(v1, zero));
		__m128i b2 = _mm_or_si128(_mm_cmpeq_epi8(v2, ccr), _mm_cmpeq_epi8(v2, zero));
		__m128i b3 = _mm_or_si128(_mm_cmpeq_epi8(v3, ccr), _mm_cmpeq_epi8(v3, zero));
		uint64_t bad = 0;
		if (_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(b0, b1), _mm_or_si128(b2, b3))))
			bad = (uint64_t)(unsigned)_mm_movemask_epi8(b0) |
			      (uint64_t)(unsigned)_mm_movemask_epi8(b1) << 16 |
			      (uint64_t)(unsigned)_mm_movemask_epi8(b2) << 32 |
			      (uint64_t)(unsigned)_mm_movemask_epi8(b3) << 48;
		__m128i before = acc;
		uint64_t starts = nl << 1 | start;

		acc = _mm_sub_epi8(acc, _mm_add_epi8(_mm_add_epi8(n0, n1), _mm_add_epi8(n2, n3)));
		for (uint64_t m = starts; m; m &= m - 1) {
			unsigned at = (unsigned)__builtin_ctzll(m);
			unsigned char c = (unsigned char)b[at];
			if (bad & ((2ull << at) - 1))
				return SIZE_MAX; /* a '\r' or NUL first */
			if (c == '\n') {
				count += acc_sum(before);
				for (uint64_t k = nl & ((1ull << at) - 1); k; k &= k - 1)
					count++;
				*lines = count;
				if (hv)
					*hv = ph_final(hs, b, at, i + at);
				return i + at;
			}
			if (c != '\t' && c != ' ')
				return SIZE_MAX;
		}
		if (bad)
			return SIZE_MAX;
		if (hv)
			ph_block(&hs, b); /* all of it is the body's: hashed while in L1 */
		start = nl >> 63;
		if (++held == 63) {
			count += acc_sum(acc);
			acc = _mm_setzero_si128();
			held = 0;
		}
	}
	{
		size_t len = scan_tail(p, i, n, start != 0, count + acc_sum(acc), lines);
		if (len != SIZE_MAX && hv)
			*hv = hash_rest(hs, p, i, len);
		return len;
	}
}
#else
size_t perf_body_scan(const char *p, size_t n, struct h128 seed, size_t *lines, struct h128 *hv)
{
	return perf_body_scan_bytes(p, n, seed, lines, hv);
}
#endif
