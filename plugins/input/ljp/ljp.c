/*
 * Input plugin "ljp": traces.txt of the Lightweight Java Profiler, as
 * stackcollapse-ljp.awk reads it.  A trace starts with "COUNT DEPTH" and its
 * leaf frame; the caller frames follow, one per line:
 *
 *     42 3  my_func_b(prog.java:455)
 *            my_func_a(prog.java:123)
 *            java.lang.Thread.run(Thread.java:744)
 *     Total trace count = 73
 *
 * The file location is removed from the first '(' to the last ')' of the
 * line, as the awk script's gsub does ("(Native Method)" goes too).
 *
 * Unlike the awk script, the last trace is kept when there is no "Total"
 * line (a truncated or hand-cut file), a "Total" line ends the trace before
 * it without ending the input, and a trace with count 0 is kept (printed
 * with 0) instead of dropped.  Lines of another shape are skipped and
 * counted.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <flamekit/plugin.h>

#include "../common/probe.h"
#include "../common/stack.h"

/* One frame of the record being read, in arrival (leaf first) order. */

/* Push the record (frames stored leaf first) root first. */

/* Fields of a line, awk style (blank-separated), after the location is
 * removed: up to 4 are reported, *nf gets the real count. */
struct fields {
	const char *p[4];
	size_t n[4];
	size_t nf;
};

static void split_fields(const char *s, size_t n, struct fields *f)
{
	const char *lp = memchr(s, '(', n);
	size_t i = 0;

	f->nf = 0;
	while (i < n) {
		size_t b;
		if (lp && s + i == lp) {
			/* skip to just after the last ')' of the line, if any */
			size_t j = n;
			while (j > i && s[j - 1] != ')')
				j--;
			if (j > i) {
				i = j;
				lp = NULL;
				continue;
			}
			lp = NULL;
		}
		if (is_space(s[i])) {
			i++;
			continue;
		}
		b = i;
		while (i < n && !is_space(s[i]) && !(lp && s + i == lp))
			i++;
		/* a name glued on both sides of its "(...)" ("f(x)g") is two
		 * fields here and one in awk; the profiler never writes that */
		if (f->nf < 4) {
			f->p[f->nf] = s + b;
			f->n[f->nf] = i - b;
		}
		f->nf++;
	}
}

static bool all_digits(const char *s, size_t n)
{
	if (n == 0)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!is_digit(s[i]))
			return false;
	return true;
}

static int parse(const struct fk_host *h, struct fk_input *in, struct fk_sink *sink, const void *op)
{
	struct stack s = { .h = h };
	bool open = false;
	double count = 0;
	const char *line;
	size_t len;
	int r, rc = 0;

	(void)op;
	while ((r = h->getline(in, &line, &len)) > 0) {
		uint64_t ln = h->input_lineno(in);
		struct fields f;

		split_fields(line, len, &f);
		if (f.nf == 0)
			continue;
		if (f.n[0] == 5 && memcmp(f.p[0], "Total", 5) == 0) {
			if (open && (rc = stack_push(&s, sink, count)) < 0)
				goto out;
			open = false;
			continue;
		}
		if (f.nf == 3 && all_digits(f.p[0], f.n[0]) && all_digits(f.p[1], f.n[1])) {
			char buf[64];
			if (open && (rc = stack_push(&s, sink, count)) < 0)
				goto out;
			if (f.n[0] >= sizeof buf) {
				h->input_skip(in, ln);
				open = false;
				continue;
			}
			memcpy(buf, f.p[0], f.n[0]);
			buf[f.n[0]] = '\0';
			count = strtod(buf, NULL);
			open = true;
			if ((rc = stack_add(&s, f.p[2], f.n[2], FK_ANNOT_NONE, ln)) < 0)
				goto out;
			continue;
		}
		if (f.nf == 1 && open) {
			if ((rc = stack_add(&s, f.p[0], f.n[0], FK_ANNOT_NONE, ln)) < 0)
				goto out;
			continue;
		}
		h->input_skip(in, ln);
	}
	if (r < 0) {
		rc = r;
		goto out;
	}
	if (open)
		rc = stack_push(&s, sink, count);
out:
	return stack_finish(&s, in, rc);
}

/* Detection: "COUNT DEPTH frame" headers followed by indented one-field
 * frame lines, and maybe the "Total trace count" line. */
static int probe(const unsigned char *buf, size_t len)
{
	struct probe_window win = { buf, len, 0, 0 };
	const char *s;
	size_t n, heads = 0, frames = 0, other = 0;
	bool total = false, open = false;

	while (probe_text_line(&win, &s, &n, &other)) {
		struct fields f;
		split_fields(s, n, &f);
		if (f.nf == 0)
			continue;
		if (f.n[0] == 5 && memcmp(f.p[0], "Total", 5) == 0)
			total = true;
		else if (f.nf == 3 && !is_space(s[0]) && all_digits(f.p[0], f.n[0]) &&
		         all_digits(f.p[1], f.n[1]) && !memchr(f.p[2], ';', f.n[2])) {
			heads++;
			open = true;
		} else if (f.nf == 1 && open && is_space(s[0]))
			frames++;
		else
			other++;
	}
	if (heads > 0)
		return probe_verdict(total ? 95 : 80, heads + frames, other);
	return 0;
}

static struct fk_input_plugin plugin = {
	.h = {
		.name = "ljp",
		.version = "1.0",
		.description = "Lightweight Java Profiler traces.txt",
	},
	.probe = probe,
	.parse = parse,
	/* a FlameGraph format: names as the stackcollapse script leaves them */
	.demangle = FK_DEMANGLE_NO,
};

FLAMEKIT_REGISTER_INPUT(plugin)
