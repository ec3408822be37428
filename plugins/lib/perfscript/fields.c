/*
 * Tracepoint fields: the one reader of the numbers perf script prints
 * after a tracepoint's event name, for every option that reads one
 * (--weight-field, --leak and its --leak-ptr/--leak-bytes, the wakee of
 * --wakeups).  One rule set, the union of what those options need:
 *
 *   - by name, in either form perf prints by the tracepoint's print
 *     format: "bytes_alloc=4096" (most tracepoints) or "len: 0x00002000,"
 *     (the syscalls); the name starts the arguments or follows a blank,
 *     and blanks may follow the '=' or ':';
 *   - the value runs to the next blank or ',' and is a non-negative
 *     integer of at most 64 bits: decimal, 0x hex (leading zeros allowed),
 *     or "(nil)", how the kernel prints a null pointer, which is 0;
 *   - the block:* events print theirs by position (block_field);
 *   - the first occurrence of the name decides: missing when there is
 *     none (or no arguments at all), bad when its value is not such a
 *     number.  Callers count both, never guess a value.
 */
#include "internal.h"

/* v[0..n) as a number by the rules above: false when it is not one. */
static bool field_number(const char *v, size_t n, uint64_t *out)
{
	unsigned base = 10;
	uint64_t x = 0;
	size_t i = 0;

	if (n == 5 && memcmp(v, "(nil)", 5) == 0) {
		*out = 0;
		return true;
	}
	if (n > 2 && v[0] == '0' && (v[1] == 'x' || v[1] == 'X'))
		base = 16, i = 2;
	if (i == n)
		return false;
	for (; i < n; i++) {
		unsigned c = (unsigned char)v[i], d;
		if (is_digit(c))
			d = c - '0';
		else if (base == 16 && (c | 0x20) >= 'a' && (c | 0x20) <= 'f')
			d = (c | 0x20) - 'a' + 10;
		else
			return false;
		if (x > (UINT64_MAX - d) / base)
			return false; /* more than 64 bits */
		x = x * base + d;
	}
	*out = x;
	return true;
}

/*
 * The block layer's tracepoints print their fields by position, not by name:
 *   block_rq_issue:  254,0 W 4096 () 20377144 + 8 0x2,0,4 [dd]
 *   block_bio_queue: 254,0 RA 12654536 + 8 [dd]
 * nr_sector is the number after the "+", and bytes (block_rq_issue,
 * _insert) the third token when the fourth is the command in parentheses.
 * Other names are missing: the rest are positions and flags, not weights.
 */
static int block_field(const char *a, size_t n, const char *name, size_t nlen, uint64_t *v)
{
	const char *t[8], *end = a + n;
	size_t tl[8], k = 0;

	for (const char *p = a; p < end && k < 8;) {
		while (p < end && is_ws((unsigned char)*p))
			p++;
		if (p == end)
			break;
		t[k] = p;
		while (p < end && !is_ws((unsigned char)*p))
			p++;
		tl[k] = (size_t)(p - t[k]);
		k++;
	}
	if (nlen == 5 && memcmp(name, "bytes", 5) == 0)
		return k >= 4 && t[3][0] == '(' ? (field_number(t[2], tl[2], v) ? PF_OK : PF_BAD)
		                                 : PF_MISSING;
	if (nlen != 9 || memcmp(name, "nr_sector", 9) != 0)
		return PF_MISSING;
	for (size_t i = 1; i + 1 < k; i++)
		if (tl[i] == 1 && t[i][0] == '+')
			return field_number(t[i + 1], tl[i + 1], v) ? PF_OK : PF_BAD;
	return PF_MISSING;
}

int perf_field_u64(const char *ev, size_t evlen, const char *a, size_t n, const char *name,
                   size_t nlen, uint64_t *v)
{
	const char *p = a, *end;

	if (!a || nlen == 0)
		return PF_MISSING;
	end = a + n;
	if (ev && evlen > 6 && memcmp(ev, "block:", 6) == 0)
		return block_field(a, n, name, nlen, v);
	while ((p = perf_memmem(p, (size_t)(end - p), name, nlen)) != NULL) {
		const char *q = p + nlen, *val;
		/* a whole field name, at the start of a token */
		if ((p == a || is_ws((unsigned char)p[-1])) && q < end && (*q == '=' || *q == ':')) {
			q++;
			while (q < end && *q == ' ')
				q++;
			val = q;
			while (q < end && !is_ws((unsigned char)*q) && *q != ',')
				q++;
			return field_number(val, (size_t)(q - val), v) ? PF_OK : PF_BAD;
		}
		p += nlen;
	}
	return PF_MISSING;
}
