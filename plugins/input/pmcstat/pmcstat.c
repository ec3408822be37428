/*
 * Input plugin "pmcstat": the call-graph text of `pmcstat -R FILE -G OUT`
 * (FreeBSD hwpmc), as stackcollapse-pmc.pl reads it.  Each top-level line is
 * a sampled function; the lines indented under it are its callers, one
 * space deeper per level, each with its share of the samples:
 *
 *     @ CPU_CLK_UNHALTED_CORE [8033 samples]
 *
 *     22.83%  [1834]     memcpy_erms @ /boot/kernel/kernel
 *      81.90%  [1502]      uiomove_faultflag
 *       100.0%  [1502]       uiomove
 *
 * Every chain from a top-level line to a line with no callers under it is a
 * stack (outermost caller first) with the count of that last line, exactly
 * as the Perl script prints it.
 *
 * Totals.  When a line's callers account for fewer samples than the line
 * itself (speedscope's simple.txt: fletcher_2_native has 5156 samples, its
 * one caller line 2610), the Perl script loses the difference.  With
 * --preserve-total the difference is kept as a stack of its own that ends at
 * that line's chain (its outermost known caller is that line), so the sum of
 * the output equals the sum of the top-level counts.  It is an option, off
 * by default, because the corpus' expected files are the Perl's output.
 *
 * Linear: one pass, a stack of the open chain; a stack is pushed once per
 * chain end, its frames written in reverse from that array.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <flamekit/plugin.h>

#include "../common/probe.h"
#include "../common/stack.h"

struct opts {
	int preserve_total;
};

struct level {
	size_t off, len;  /* name in text[] */
	double count;
	double kids;      /* sum of the counts of the caller lines under it */
	bool has_kids;
};

struct state {
	const struct fk_host *h;
	struct fk_sink *sink;
	bool preserve;
	char *text;
	size_t len, cap;
	struct level *v;
	size_t n, cap_v;
	struct fk_frameref *refs;
	size_t cap_refs;
};

/* Push levels 0..d as one stack (level d is the outermost caller, root). */
static int emit(struct state *st, size_t d, double count)
{
	struct fk_sample smp;

	if (fk_vector_grow((void **)&st->refs, &st->cap_refs, d + 1, sizeof *st->refs,
	    st->h->realloc) < 0)
		return FK_ERR_NOMEM;
	for (size_t i = 0; i <= d; i++) {
		const struct level *l = &st->v[d - i];
		st->refs[i] = frame_ref(st->text + l->off, l->len);
	}
	memset(&smp, 0, sizeof smp);
	smp.frames = st->refs;
	smp.nframes = d + 1;
	smp.weight[0] = count;
	return st->h->push(st->sink, &smp, NULL);
}

/* Close the open levels deeper than or at `depth`, deepest first. */
static int close_to(struct state *st, size_t depth)
{
	while (st->n > depth) {
		struct level *l = &st->v[st->n - 1];
		int rc = 0;
		if (!l->has_kids)
			rc = emit(st, st->n - 1, l->count);
		else if (st->preserve && l->count > l->kids)
			rc = emit(st, st->n - 1, l->count - l->kids);
		if (rc < 0)
			return rc;
		st->len = l->off;
		st->n--;
	}
	return 0;
}

/* Parse "<spaces>NN.NN%  [COUNT]  NAME ...": depth, count and name. */
static bool graph_line(const char *s, size_t n, size_t *depth, double *count,
                       const char **name, size_t *nlen)
{
	size_t i = 0, d, c0;
	char buf[32];

	while (i < n && s[i] == ' ')
		i++;
	*depth = i;
	d = i;
	while (i < n && (is_digit(s[i]) || s[i] == '.'))
		i++;
	if (i == d || i >= n || s[i] != '%')
		return false;
	i++;
	while (i < n && is_space(s[i]))
		i++;
	if (i >= n || s[i] != '[')
		return false;
	c0 = ++i;
	while (i < n && is_digit(s[i]))
		i++;
	if (i == c0 || i >= n || s[i] != ']' || i - c0 >= sizeof buf)
		return false;
	memcpy(buf, s + c0, i - c0);
	buf[i - c0] = '\0';
	*count = strtod(buf, NULL);
	i++;
	while (i < n && is_space(s[i]))
		i++;
	c0 = i;
	while (i < n && !is_space(s[i]))
		i++;
	if (i == c0)
		return false;
	*name = s + c0;
	*nlen = i - c0;
	return true;
}

/* "@ EVENT [N samples]" */
static bool event_line(const char *s, size_t n)
{
	return n >= 2 && s[0] == '@' && s[1] == ' ';
}

static int parse(const struct fk_host *h, struct fk_input *in, struct fk_sink *sink, const void *op)
{
	const struct opts *o = op;
	struct state st = { .h = h, .sink = sink, .preserve = o && o->preserve_total };
	const char *line;
	size_t len;
	int r, rc = 0;

	while ((r = h->getline(in, &line, &len)) > 0) {
		uint64_t ln = h->input_lineno(in);
		size_t depth, nlen, i = 0;
		const char *name;
		double count;

		while (i < len && is_space(line[i]))
			i++;
		if (i == len)
			continue;
		if (event_line(line, len)) {
			/* a new event's tree: nothing carries over */
			if ((rc = close_to(&st, 0)) < 0)
				goto out;
			continue;
		}
		if (!graph_line(line, len, &depth, &count, &name, &nlen) || depth > st.n) {
			/* not a call-graph line, or deeper than one below its parent */
			h->input_skip(in, ln);
			continue;
		}
		if ((rc = close_to(&st, depth)) < 0)
			goto out;
		if (depth > 0) {
			st.v[depth - 1].has_kids = true;
			st.v[depth - 1].kids += count;
		}
		if (text_add(h, &st.text, &st.cap, st.len, name, nlen) < 0 ||
		    fk_vector_grow((void **)&st.v, &st.cap_v, st.n + 1, sizeof *st.v,
		        h->realloc) < 0) {
			rc = FK_ERR_NOMEM;
			goto out;
		}
		st.v[st.n].off = st.len;
		st.v[st.n].len = nlen;
		st.v[st.n].count = count;
		st.v[st.n].kids = 0;
		st.v[st.n].has_kids = false;
		st.len += nlen;
		st.n++;
	}
	if (r < 0) {
		rc = r;
		goto out;
	}
	rc = close_to(&st, 0);
out:
	report_nomem(h, in, rc);
	h->free(st.text);
	h->free(st.v);
	h->free(st.refs);
	return rc;
}

/* Detection: the "@ EVENT [N samples]" header, or call-graph lines only. */
static int probe(const unsigned char *buf, size_t len)
{
	struct probe_window win = { buf, len, 0, 0 };
	const char *s;
	size_t n, graph = 0, events = 0, other = 0;

	while (probe_line(&win, &s, &n)) {
		size_t depth, nl2;
		const char *name;
		double c;
		if (probe_ignorable(s, n))
			continue;
		if (event_line(s, n) && memchr(s, '[', n) && s[n - 1] == ']')
			events++;
		else if (graph_line(s, n, &depth, &c, &name, &nl2))
			graph++;
		else
			other++;
	}
	if (graph > 0)
		return probe_verdict(events ? 95 : 85, graph + events, other);
	if (events > 0)
		return probe_verdict(80, events, other); /* the header alone, the rest cut by the window */
	return 0;
}

static const struct fk_option options[] = {
	FK_OPTION(FK_OPT_FLAG, "preserve-total", "0", struct opts, preserve_total,
	          "keep samples a line's callers do not account for (the Perl drops them)"),
	FK_OPTION_END,
};

static struct fk_input_plugin plugin = {
	.h = {
		.name = "pmcstat",
		.version = "1.0",
		.description = "FreeBSD pmcstat -G call graphs",
		.options = options,
		.options_size = sizeof(struct opts),
	},
	.probe = probe,
	.parse = parse,
	/* a FlameGraph format: names as the stackcollapse script leaves them */
	.demangle = FK_DEMANGLE_NO,
};

FLAMEKIT_REGISTER_INPUT(plugin)
