/*
 * flamegraph.pl's colour functions, in C.  Names are read as UTF-8
 * characters, as flamegraph.pl reads them (its hashes use code points, and
 * "scalar reverse" reverses characters); a byte that is not valid UTF-8
 * counts as one character whose code is the byte's value.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "palette.h"

#define R48_MASK ((UINT64_C(1) << 48) - 1)

void pal_srand(struct pal_rand *r, uint32_t seed)
{
	r->x = (UINT64_C(0x330e) + ((uint64_t)seed << 16)) & R48_MASK;
}

double pal_rand01(struct pal_rand *r)
{
	r->x = (UINT64_C(0x5deece66d) * r->x + 0xb) & R48_MASK;
	return ldexp((double)r->x, -48);
}

size_t pal_utf8(const unsigned char *s, size_t len, int32_t *cp)
{
	unsigned c = s[0];
	size_t n;
	int32_t v, min;

	if (c < 0x80) {
		*cp = (int32_t)c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf) {
		n = 2;
		v = c & 0x1f;
		min = 0x80;
	} else if (c >= 0xe0 && c <= 0xef) {
		n = 3;
		v = c & 0x0f;
		min = 0x800;
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4;
		v = c & 0x07;
		min = 0x10000;
	} else {
		*cp = -1;
		return 1;
	}
	if (len < n) {
		*cp = -1;
		return 1;
	}
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80) {
			*cp = -1;
			return 1;
		}
		v = (v << 6) | (s[i] & 0x3f);
	}
	if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff)) {
		*cp = -1;
		return 1;
	}
	*cp = v;
	return n;
}

/* The name as a vector of character codes (invalid bytes as their value). */
static size_t codes(const char *name, size_t len, int32_t *out, size_t cap)
{
	const unsigned char *s = (const unsigned char *)name;
	size_t i = 0, n = 0;

	while (i < len && n < cap) {
		int32_t cp;
		size_t k = pal_utf8(s + i, len - i, &cp);
		out[n++] = cp < 0 ? s[i] : cp;
		i += k;
	}
	return n;
}

/* namehash over characters v[0..n) (optionally walked backwards). */
static double namehash(const int32_t *v, size_t n, int backwards)
{
	double vector = 0, weight = 1, max = 1;
	int mod = 10;
	size_t start = 0;

	/* `s/.(.*?)`//`: drop everything up to the first backtick that is not
	 * the first character (the module name of dtrace's mod`func). */
	for (size_t i = 1; i < n; i++) {
		int32_t c = backwards ? v[n - 1 - i] : v[i];
		if (c == '`') {
			start = i + 1;
			break;
		}
	}
	for (size_t i = start; i < n; i++) {
		int32_t c = backwards ? v[n - 1 - i] : v[i];
		int k = (int)(c % mod);
		vector += ((double)k / (mod++ - 1)) * weight;
		max += weight;
		weight *= 0.70;
		if (mod > 12)
			break;
	}
	return 1 - vector / max;
}

static int has(const char *name, size_t len, const char *needle)
{
	size_t m = strlen(needle);
	if (m > len)
		return 0;
	for (size_t i = 0; i + m <= len; i++)
		if (memcmp(name + i, needle, m) == 0)
			return 1;
	return 0;
}

static int ends(const char *name, size_t len, const char *suffix)
{
	size_t m = strlen(suffix);
	return len >= m && memcmp(name + len - m, suffix, m) == 0;
}

/* m:^L?(java|javax|jdk|net|org|com|io|sun)/: */
static int java_package(const char *name, size_t len)
{
	static const char *const pk[] = { "java/", "javax/", "jdk/", "net/", "org/", "com/", "io/", "sun/" };
	if (len && name[0] == 'L') {
		for (size_t i = 0; i < sizeof pk / sizeof pk[0]; i++)
			if (len - 1 >= strlen(pk[i]) && memcmp(name + 1, pk[i], strlen(pk[i])) == 0)
				return 1;
	}
	for (size_t i = 0; i < sizeof pk / sizeof pk[0]; i++)
		if (len >= strlen(pk[i]) && memcmp(name, pk[i], strlen(pk[i])) == 0)
			return 1;
	return 0;
}

/* m:/.*\.js: */
static int js_path(const char *name, size_t len)
{
	const char *slash = memchr(name, '/', len);
	if (!slash)
		return 0;
	return has(slash, len - (size_t)(slash - name), ".js");
}

static const char *const known[] = { "hot", "mem", "io", "wakeup", "chain", "java", "js", "perl",
	                              "red", "green", "blue", "aqua", "yellow", "purple", "orange",
	                              "rust", "python" };

static int starts(const char *name, size_t len, const char *prefix)
{
	size_t n = strlen(prefix);
	return len >= n && memcmp(name, prefix, n) == 0;
}

/* inferno's rust palette: the standard library orange, other Rust paths
 * aqua, the rest (C, the kernel) yellow; the name after a '`' (module`fn). */
static const char *rust_type(const char *name, size_t len)
{
	const char *tick = memchr(name, '`', len);

	if (tick) {
		len -= (size_t)(tick + 1 - name);
		name = tick + 1;
	}
	if (starts(name, len, "core::") || starts(name, len, "std::") || starts(name, len, "alloc::") ||
	    (starts(name, len, "<core::") &&
	     !starts(name, len, "<core::future::from_generator::GenFuture<T>")) ||
	    starts(name, len, "<std::") || starts(name, len, "<alloc::"))
		return "orange";
	return has(name, len, "::") ? "aqua" : "yellow";
}

/* A path component of a python frame ('/' or '\\' separated) that is
 * site-packages (want 0), or python/Python and a version of digits and
 * dots (want 1). */
static int python_part(const char *name, size_t len, int want)
{
	for (size_t i = 0; i <= len;) {
		size_t j = i;
		while (j < len && name[j] != '/' && name[j] != '\\')
			j++;
		if (want == 0 && j - i == 13 && memcmp(name + i, "site-packages", 13) == 0)
			return 1;
		if (want == 1 && j - i >= 6 && (memcmp(name + i, "python", 6) == 0 ||
		                                memcmp(name + i, "Python", 6) == 0)) {
			size_t k = i + 6;
			while (k < j && ((name[k] >= '0' && name[k] <= '9') || name[k] == '.'))
				k++;
			if (k == j)
				return 1;
		}
		i = j + 1;
	}
	return 0;
}

/* inferno's python palette: site-packages aqua, the standard library and
 * built-ins yellow, the rest red. */
static const char *python_type(const char *name, size_t len)
{
	if (python_part(name, len, 0))
		return "aqua";
	if (python_part(name, len, 1) || starts(name, len, "<built-in") || starts(name, len, "<method") ||
	    starts(name, len, "<frozen"))
		return "yellow";
	return "red";
}

int pal_known(const char *name)
{
	for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
		if (strcmp(name, known[i]) == 0)
			return 1;
	return 0;
}

#define RGB(r, g, b) \
	snprintf(out, 32, "rgb(%u,%u,%u)", (unsigned)(unsigned char)(r), (unsigned)(unsigned char)(g), \
	         (unsigned)(unsigned char)(b))

/* flamegraph.pl's plain colours: each channel its base plus its range
 * times the name's value, v1 (rounded down as the Perl's int() does). */
static const struct plain_colour {
	const char *name;
	int r, dr, g, dg, b, db;
} plain[] = {
	{ "red", 200, 55, 50, 80, 50, 80 },
	{ "green", 50, 60, 200, 55, 50, 60 },
	{ "blue", 80, 60, 80, 60, 205, 50 },
	{ "yellow", 175, 55, 175, 55, 50, 20 },
	{ "purple", 190, 65, 80, 60, 190, 65 },
	{ "aqua", 50, 60, 165, 55, 165, 55 },
	{ "orange", 190, 65, 90, 65, 0, 0 },
};

void pal_colour(const char *type, int hash, struct pal_rand *rnd, const char *name, size_t len,
                char out[32])
{
	double v1, v2, v3;

	if (strcmp(type, PAL_CHAIN_WAKER) == 0) {
		/* flamegraph.pl hashes the annotated name "NAME_[w]" */
		char small[256], *w = len + 5 <= sizeof small ? small : malloc(len + 5);
		if (!w) {
			pal_colour("aqua", hash, rnd, name, len, out);
			return;
		}
		memcpy(w, name, len);
		memcpy(w + len, "_[w]", 4);
		pal_colour("chain", hash, rnd, w, len + 4, out);
		if (w != small)
			free(w);
		return;
	}
	if (hash) {
		/* a character never takes fewer than one byte: len codes suffice */
		int32_t buf[128] = { 0 }, *v = len > 128 ? malloc(len * sizeof *v) : buf;
		size_t n;
		if (!v) /* out of memory: hash the first 128 characters only */
			v = buf, len = 128;
		n = codes(name, len, v, len > 128 ? len : 128);
		v1 = namehash(v, n, 0);
		v2 = v3 = namehash(v, n, 1);
		if (v != buf)
			free(v);
	} else if (rnd) {
		v1 = pal_rand01(rnd);
		v2 = pal_rand01(rnd);
		v3 = pal_rand01(rnd);
	} else {
		/* random_namehash: srand(sum of character codes); rand(1).  All
		 * three calls reseed, so the three values are equal. */
		struct pal_rand r;
		uint32_t sum = 0;
		const unsigned char *s = (const unsigned char *)name;
		for (size_t i = 0; i < len;) {
			int32_t cp;
			size_t k = pal_utf8(s + i, len - i, &cp);
			sum += (uint32_t)(cp < 0 ? s[i] : cp);
			i += k;
		}
		pal_srand(&r, sum);
		v1 = v2 = v3 = pal_rand01(&r);
	}

	if (strcmp(type, "hot") == 0) {
		RGB(205 + (int)(50 * v3), (int)(230 * v1), (int)(55 * v2));
		return;
	}
	if (strcmp(type, "mem") == 0) {
		RGB(0, 190 + (int)(50 * v2), (int)(210 * v1));
		return;
	}
	if (strcmp(type, "io") == 0) {
		int r = 80 + (int)(60 * v1);
		RGB(r, r, 190 + (int)(55 * v2));
		return;
	}
	if (strcmp(type, "java") == 0) {
		if (ends(name, len, "_[j]"))
			type = "green";
		else if (ends(name, len, "_[i]"))
			type = "aqua";
		else if (java_package(name, len))
			type = "green";
		else if (has(name, len, ":::"))
			type = "green";
		else if (has(name, len, "::"))
			type = "yellow";
		else if (ends(name, len, "_[k]"))
			type = "orange";
		else
			type = "red";
	} else if (strcmp(type, "perl") == 0) {
		if (has(name, len, "::"))
			type = "yellow";
		else if (has(name, len, "Perl") || has(name, len, ".pl"))
			type = "green";
		else if (ends(name, len, "_[k]"))
			type = "orange";
		else
			type = "red";
	} else if (strcmp(type, "js") == 0) {
		if (ends(name, len, "_[j]"))
			type = memchr(name, '/', len) ? "green" : "aqua";
		else if (has(name, len, "::"))
			type = "yellow";
		else if (js_path(name, len))
			type = "green";
		else if (memchr(name, ':', len))
			type = "aqua";
		else if (len == 1 && name[0] == ' ')
			type = "green";
		else if (has(name, len, "_[k]"))
			type = "orange";
		else
			type = "red";
	} else if (strcmp(type, "rust") == 0) {
		type = rust_type(name, len);
	} else if (strcmp(type, "python") == 0) {
		type = python_type(name, len);
	} else if (strcmp(type, "wakeup") == 0) {
		type = "aqua";
	} else if (strcmp(type, "chain") == 0) {
		type = has(name, len, "_[w]") ? "aqua" : "blue";
	}

	for (size_t i = 0; i < sizeof plain / sizeof *plain; i++)
		if (strcmp(type, plain[i].name) == 0) {
			const struct plain_colour *c = &plain[i];
			RGB(c->r + (int)(c->dr * v1), c->g + (int)(c->dg * v1), c->b + (int)(c->db * v1));
			return;
		}
	RGB(0, 0, 0);
}

void pal_scale(double value, double max, int negate, char out[32])
{
	int r = 255, g = 255, b = 255;

	if (negate)
		value = -value;
	if (value > 0)
		g = b = (int)(210 * (max - value) / max);
	else if (value < 0)
		r = g = (int)(210 * (max + value) / max);
	RGB(r, g, b);
}

/* WCAG relative luminance of one sRGB channel (0..255). */
static double channel(int v)
{
	double c = v / 255.0;
	return c <= 0.03928 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4);
}

int pal_dark(const char *fill)
{
	int r, g, b;

	if (sscanf(fill, "rgb(%d,%d,%d)", &r, &g, &b) != 3)
		return 0;
	/* below 0.179 white contrasts more than black: (1 + 0.05) / (L + 0.05) > (L + 0.05) / 0.05 */
	return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b) < 0.179;
}
