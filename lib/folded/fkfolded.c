/* The folded grammar (see fkfolded.h). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fkfolded.h"

static inline int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\f' || c == '\v' || c == '\r' || c == '\n';
}

long fk_folded_count(const char *s, size_t n, double *w)
{
	size_t e = n, i = n;
	char buf[64];
	int neg = 0;

	while (i > 0 && s[i - 1] >= '0' && s[i - 1] <= '9')
		i--;
	if (i > 0 && s[i - 1] == '.') {
		size_t dot = i - 1, j = dot;
		while (j > 0 && s[j - 1] >= '0' && s[j - 1] <= '9')
			j--;
		if (j == dot)
			return -1; /* ".5" is not a count */
		i = j;
	} else if (i == e) {
		return -1;
	}
	/* a minus sign: the negative weights flamekit itself prints (pprof
	 * values are int64), after the whitespace */
	if (i >= 2 && s[i - 1] == '-' && is_space(s[i - 2]))
		neg = 1, i--;
	if (i == 0 || !is_space(s[i - 1]))
		return -1;
	if (e - i - (size_t)neg <= 15 && !memchr(s + i, '.', e - i)) {
		/* The common case: an integer exact in a double, as strtod gives it. */
		uint64_t v = 0;
		for (size_t k = i + (size_t)neg; k < e; k++)
			v = v * 10 + (uint64_t)(s[k] - '0');
		*w = neg ? -(double)v : (double)v;
		return (long)(i - 1);
	}
	/* a long digit run: strtod rounds it to the nearest double, so every
	 * integer fk_folded_format prints reads back as the same double; past
	 * what buf holds it is > 1e60 anyway */
	if (e - i < sizeof buf) {
		memcpy(buf, s + i, e - i);
		buf[e - i] = '\0';
	} else {
		memcpy(buf, s + i, sizeof buf - 1);
		buf[sizeof buf - 1] = '\0';
	}
	*w = strtod(buf, NULL);
	return (long)(i - 1);
}

long fk_folded_line(const char *s, size_t n, double w[2], int *two)
{
	double w1 = 0, w2 = 0;
	long sl = fk_folded_count(s, n, &w1), s2;

	*two = 0;
	w[0] = w[1] = 0;
	if (sl < 0)
		return -1;
	s2 = fk_folded_count(s, (size_t)sl, &w2);
	if (s2 >= 0) {
		*two = 1;
		w[0] = w2;
		w[1] = w1;
		return s2;
	}
	w[0] = w1;
	return sl;
}

size_t fk_folded_trim(const char *s, size_t n)
{
	while (n > 0 && s[n - 1] == ';')
		n--;
	return n;
}

size_t fk_folded_format(char *buf, size_t cap, double v)
{
	char tmp[32], *p = tmp + sizeof tmp;
	size_t n;

	if (v == floor(v) && fabs(v) < 9.2e18) {
		long long x = (long long)v;
		unsigned long long u = x < 0 ? -(unsigned long long)x : (unsigned long long)x;
		do
			*--p = (char)('0' + u % 10);
		while ((u /= 10) != 0);
		if (x < 0)
			*--p = '-';
		n = (size_t)(tmp + sizeof tmp - p);
	} else {
		/* every double of 2^53 and more is an integer: print it whole
		 * (glibc's %.0f is exact), so the count grammar, which has no
		 * exponent, reads it back as the same double; "%.15g" only for a
		 * fraction, or a number too long for 31 digits */
		int k = -1;
		if (v == floor(v) && fabs(v) < 1e31)
			k = snprintf(tmp, sizeof tmp, "%.0f", v);
		if (k < 0)
			k = snprintf(tmp, sizeof tmp, "%.15g", v);
		p = tmp;
		n = k < 0 ? 0 : (size_t)k < sizeof tmp ? (size_t)k : sizeof tmp - 1;
	}
	if (n > cap)
		n = cap;
	memcpy(buf, p, n);
	return n;
}

const char *fk_folded_next(const char *s, size_t n, size_t *pos, size_t *len)
{
	size_t i = *pos;
	const char *semi;

	if (n == 0 || i > n)
		return NULL;
	semi = memchr(s + i, ';', n - i);
	*len = semi ? (size_t)(semi - (s + i)) : n - i;
	*pos = i + *len + 1;
	return s + i;
}
