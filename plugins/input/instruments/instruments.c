/*
 * Input plugin "instruments": an Xcode Instruments Time Profiler call tree
 * copied with Edit > Deep Copy, as stackcollapse-instruments.pl reads it.
 * Tab-separated columns: total weight ("6.45 s  100.0%"), self weight
 * ("664.00 ms"), a blank column, then the symbol indented one space per
 * depth:
 *
 *     Weight	Self Weight		Symbol Name
 *     6.45 s  100.0%	0 s	 	Main Thread  0x6d74e1
 *     6.45 s  100.0%	664.00 ms	 	 start
 *
 * Each row is a stack (its ancestors' rows, then itself) weighted by its self
 * time in milliseconds, rounded to a whole number per row with round half to
 * even, as the Perl's printf("%.0f") does, before identical stacks are
 * summed.  Rows with a zero self time are kept with a count of 0.
 *
 * Also read, where the Perl dies: Instruments 7 ("Running Time", "Self
 * (ms)" holding bare numbers, "4273.0ms" with no space), Instruments 13+
 * cycle weights ("532 cycles", "96.08 Gc", "-" for no self weight: counts
 * are then cycles), Instruments 16 (no blank column, top rows indented by 3
 * spaces: depth counts from the first row's indentation), µs and ns units,
 * and a total without a decimal point ("0 s").  A row that cannot be read
 * is skipped and counted and the run goes on; the Perl dies on the first.
 *
 * Cost: each row pushes its whole path, so the work is the sum of the row
 * depths; that is the size of the folded output itself.
 */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <flamekit/plugin.h>

#include "../common/probe.h"
#include "../common/stack.h"

/* Kinds of weight a column holds. */
enum { W_TIME = 1, W_CYCLES = 2 };

/*
 * One weight: "12.34 ms", "4273.0ms" (Instruments 7), "693" (a bare number:
 * the "Self (ms)" column of Instruments 7), "532 cycles", "96.08 Gc", or "-"
 * (no self weight: 0) when `dash` is allowed.  Times come out in
 * milliseconds (min, s, ms, µs also written μs or us, ns), cycles in cycles
 * (cycles, Kc, Mc, Gc).  *used: bytes read; *kind: W_TIME or W_CYCLES.
 */
static bool measure(const char *s, size_t n, bool dash, double *val, size_t *used, int *kind)
{
	size_t i = 0, d;
	char buf[48];
	double v;
	static const struct {
		const char *u;
		double mul;
		int div, kind;
	} units[] = {
		{ "min", 60000.0, 0, W_TIME }, { "ms", 1, 0, W_TIME }, { "s", 1000.0, 0, W_TIME },
		{ "\xc2\xb5s", 1000.0, 1, W_TIME }, { "\xce\xbcs", 1000.0, 1, W_TIME },
		{ "us", 1000.0, 1, W_TIME }, { "ns", 1e6, 1, W_TIME },
		{ "cycles", 1, 0, W_CYCLES }, { "Kc", 1e3, 0, W_CYCLES },
		{ "Mc", 1e6, 0, W_CYCLES }, { "Gc", 1e9, 0, W_CYCLES },
	};

	if (dash && n >= 1 && s[0] == '-' && (n == 1 || s[1] == ' ')) {
		*val = 0;
		*used = 1;
		*kind = 0;
		return true;
	}
	d = i;
	while (i < n && is_digit(s[i]))
		i++;
	if (i == d)
		return false;
	if (i < n && s[i] == '.') {
		size_t f = ++i;
		while (i < n && is_digit(s[i]))
			i++;
		if (i == f)
			return false;
	}
	if (i - d >= sizeof buf)
		return false;
	memcpy(buf, s + d, i - d);
	buf[i - d] = '\0';
	v = strtod(buf, NULL);
	if (i == n || (s[i] == ' ' && (i + 1 == n || s[i + 1] == ' '))) {
		/* a bare number: milliseconds */
		*val = v;
		*used = i;
		*kind = W_TIME;
		return true;
	}
	if (s[i] == ' ')
		i++;
	for (size_t k = 0; k < sizeof units / sizeof units[0]; k++) {
		size_t ul = strlen(units[k].u);
		if (n - i >= ul && memcmp(s + i, units[k].u, ul) == 0 &&
		    (n - i == ul || s[i + ul] == ' ')) {
			/* the Perl multiplies; dividing keeps µs exact where it can be */
			*val = units[k].div ? v / units[k].mul : v * units[k].mul;
			*used = i + ul;
			*kind = units[k].kind;
			return true;
		}
	}
	return false;
}

/* Split a row.  Returns false when it is not one.  *indent is the number of
 * spaces before the symbol. */
static bool row(const char *s, size_t n, double *self, int *kind, size_t *indent,
                const char **name, size_t *nlen)
{
	const char *t1 = memchr(s, '\t', n), *t2, *sym;
	size_t used, i, m;
	double total;
	int k1;

	if (!t1)
		return false;
	/* column 1: "6.45 s  100.0%" */
	if (!measure(s, (size_t)(t1 - s), false, &total, &used, &k1))
		return false;
	t1++;
	t2 = memchr(t1, '\t', n - (size_t)(t1 - s));
	if (!t2)
		return false;
	/* column 2: the self weight, alone */
	if (!measure(t1, (size_t)(t2 - t1), true, self, &used, kind) || used != (size_t)(t2 - t1))
		return false;
	if (*kind == 0)
		*kind = k1;
	sym = t2 + 1;
	m = n - (size_t)(sym - s);
	/* the blank column, when present */
	if (m >= 2 && sym[0] == ' ' && sym[1] == '\t') {
		sym += 2;
		m -= 2;
	} else if (m >= 1 && sym[0] == '\t') {
		sym++;
		m--;
	}
	for (i = 0; i < m && sym[i] == ' '; i++)
		;
	while (m > i && (sym[m - 1] == ' ' || sym[m - 1] == '\t'))
		m--;
	if (i == m)
		return false;
	*indent = i;
	*name = sym + i;
	*nlen = m - i;
	return true;
}

static bool header_line(const char *s, size_t n)
{
	return (n >= 6 && memcmp(s, "Weight", 6) == 0) ||
	       (n >= 12 && memcmp(s, "Running Time", 12) == 0);
}

static int parse(const struct fk_host *h, struct fk_input *in, struct fk_sink *sink, const void *op)
{
	struct stack st = { .h = h }; /* the path to the row, root first */
	const char *line;
	size_t len, base = SIZE_MAX;
	unsigned kinds = 0;
	int r, rc = 0;

	(void)op;
	while ((r = h->getline(in, &line, &len)) > 0) {
		uint64_t ln = h->input_lineno(in);
		size_t indent, depth, nlen;
		const char *name;
		double w;
		int kind;
		struct fk_sample smp;

		if (len == 0)
			continue;
		if (ln == 1 && header_line(line, len))
			continue;
		if (!row(line, len, &w, &kind, &indent, &name, &nlen)) {
			h->input_skip(in, ln);
			continue;
		}
		/* Depth counts from the first row's indentation: Instruments 16
		 * indents its top rows by 3 spaces, earlier versions by none. */
		if (base == SIZE_MAX)
			base = indent;
		depth = indent - base;
		if (indent < base || depth > st.n) {
			/* left of the top rows, or deeper than one below the row above */
			h->input_skip(in, ln);
			continue;
		}
		kinds |= (unsigned)kind;
		st.n = depth;
		st.len = depth ? st.v[depth - 1].off + st.v[depth - 1].len : 0;
		if (stack_add(&st, name, nlen, FK_ANNOT_NONE, ln) < 0 ||
		    fk_vector_grow((void **)&st.refs, &st.cap_refs, st.n, sizeof *st.refs,
		        h->realloc) < 0) {
			rc = FK_ERR_NOMEM;
			goto out;
		}
		for (size_t k = 0; k < st.n; k++) {
			st.refs[k] = frame_ref(st.text + st.v[k].off, st.v[k].len);
		}
		memset(&smp, 0, sizeof smp);
		smp.frames = st.refs;
		smp.nframes = st.n;
		/* round half to even, per row, as printf("%.0f") */
		smp.weight[0] = nearbyint(w);
		if ((rc = h->push(sink, &smp, NULL)) < 0)
			goto out;
	}
	if (r < 0)
		rc = r;
	if (rc == 0 && h->sink_set_unit && kinds)
		h->sink_set_unit(sink, kinds == W_CYCLES ? "cycles" : "ms");
out:
	return stack_finish(&st, in, rc);
}

/* Column 1 of a row ends with its share, "100.0%", as Instruments always
 * prints it: a row without one, headerless, is some other tab-separated
 * table's (an xdebug trace's "2\t1\t0\t0.000246\t393544..."). */
static bool share_col(const char *s, size_t n)
{
	const char *t = memchr(s, '\t', n);
	size_t i = t ? (size_t)(t - s) : n, d;

	while (i > 0 && s[i - 1] == ' ')
		i--;
	if (i == 0 || s[--i] != '%')
		return false;
	d = i;
	while (i > 0 && ((s[i - 1] >= '0' && s[i - 1] <= '9') || s[i - 1] == '.'))
		i--;
	return i < d && (i == 0 || s[i - 1] == ' ');
}

/* Detection: the "Weight\tSelf Weight" header, or rows only (each with its
 * share). */
static int probe(const unsigned char *buf, size_t len)
{
	struct probe_window win = { buf, len, 0, 0 };
	const char *s;
	size_t n, rows = 0, other = 0;
	bool header = false;
	int score;

	while (probe_line(&win, &s, &n)) {
		size_t lines = win.lines;
		size_t indent, nlen;
		const char *name;
		double w;
		int kind;
		if (n == 0)
			continue;
		if (lines == 1 && header_line(s, n) && memchr(s, '\t', n)) {
			header = true;
			continue;
		}
		if (row(s, n, &w, &kind, &indent, &name, &nlen) && (header || share_col(s, n)))
			rows++;
		else
			other++;
	}
	if (header && other == 0)
		return 95;
	if (rows > 0 && (score = probe_verdict(85, rows, other)) > 0)
		return score;
	if (header && rows > other)
		return 70;
	return 0;
}

static struct fk_input_plugin plugin = {
	.h = {
		.name = "instruments",
		.version = "1.0",
		.description = "Xcode Instruments call tree (Deep Copy)",
	},
	.probe = probe,
	.parse = parse,
	/* a FlameGraph format: names as the stackcollapse script leaves them */
	.demangle = FK_DEMANGLE_NO,
};

FLAMEKIT_REGISTER_INPUT(plugin)
