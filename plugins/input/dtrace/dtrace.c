/*
 * Input plugin "dtrace": the output of DTrace aggregations keyed on stack()
 * and/or ustack(), as stackcollapse.pl reads it.  A record is a run of frame
 * lines, leaf first, ended by a line holding only the count:
 *
 *     CPU     ID                    FUNCTION:NAME
 *       3  71224                        :tick-60s
 *
 *                   libc.so.1`memmove+0x3a
 *                   a.out`main+0x2d
 *                    17
 *
 * Frame names lose their offset (a trailing `+0x...`), C++ names are cut at
 * the last '(' or '<' after their first "::" (so templates and argument
 * lists go, as in stackcollapse.pl), a frame that is empty after that is the
 * "-" separator DTrace prints between kernel and user stacks, and Java frames
 * "A->B" (inlined B) become A;B_[i] with class descriptors tidied
 * ("Ljava/util/Map;" -> "java/util/Map:").
 *
 * Unlike stackcollapse.pl, a '+' that does not start a real offset is kept
 * (libstdc++.so.6`f stays whole), and a leading 'L' is dropped only from Java
 * class descriptors, never from names such as LibFoo`bar.  The first three
 * lines are skipped whatever they hold, as stackcollapse.pl and inferno do.
 *
 * --includeoffset keeps every frame's offset but the leaf's: the script's
 * $includeoffset, which has no option there (inferno's --includeoffset),
 * without its bug of trimming the joined stack from its last '+' when the
 * leaf has no offset (FlameGraph#202).
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <flamekit/plugin.h>

#include "../common/probe.h"
#include "../common/stack.h"

#include "../common/count_sync.h"

struct opts {
	long long header_lines;
	int includeoffset;
};

/* One frame of the record being read, in arrival (leaf first) order. */

/* Push the record (frames stored leaf first) root first. */

/* "CPU     ID                    FUNCTION:NAME" */
static bool cpu_header(const char *s, size_t n)
{
	size_t i = 0;

	while (i < n && is_space(s[i]))
		i++;
	if (n - i < 3 || memcmp(s + i, "CPU", 3) != 0)
		return false;
	for (; i + 13 <= n; i++)
		if (memcmp(s + i, "FUNCTION:NAME", 13) == 0)
			return true;
	return false;
}

/* Length of the name without a trailing "+0x<hex>" offset. */
static size_t strip_offset(const char *s, size_t n)
{
	size_t i = n;

	while (i > 0 && is_hex(s[i - 1]))
		i--;
	if (i < n && i >= 3 && (s[i - 1] == 'x' || s[i - 1] == 'X') && s[i - 2] == '0' &&
	    s[i - 3] == '+')
		return i - 3;
	return n;
}

/* C++: cut at the last '(' or '<' after the first "::". */
static size_t strip_cxx(const char *s, size_t n)
{
	const char *c = NULL;

	for (size_t i = 0; i + 1 < n; i++)
		if (s[i] == ':' && s[i + 1] == ':') {
			c = s + i;
			break;
		}
	if (!c)
		return n;
	for (size_t i = n; i > (size_t)(c - s) + 2; i--)
		if (s[i - 1] == '(' || s[i - 1] == '<')
			return i - 1;
	return n;
}

/* A Java class descriptor "Lpkg/Class;...": its 'L' goes. */
static bool java_descriptor(const char *s, size_t n)
{
	if (n < 3 || s[0] != 'L')
		return false;
	for (size_t i = 1; i < n; i++) {
		if (s[i] == ';')
			return i > 1;
		if (s[i] == '`' || is_space(s[i]))
			return false;
	}
	return false;
}

/* Add one frame line (leaf-first order).  Inline pieces "A->B->C" are
 * stored reversed (C, B, A) so that reversing the whole record at push time
 * gives A;B_[i];C_[i] root first. */
static int add_frame(struct stack *s, const char *p, size_t n, uint64_t line, bool offset)
{
	size_t starts[64], lens[64], k = 0, b = 0;
	int rc;

	while (n > 0 && is_space(*p))
		p++, n--;
	if (!offset || s->n == 0) /* the leaf's offset goes either way */
		n = strip_offset(p, n);
	n = strip_cxx(p, n);
	if (n == 0)
		return stack_add(s, "-", 1, FK_ANNOT_NONE, line);
	/* Split on "->" but not C++'s "operator->". */
	for (size_t i = 0; i + 1 < n; i++) {
		if (p[i] != '-' || p[i + 1] != '>')
			continue;
		if (i >= 8 && memcmp(p + i - 8, "operator", 8) == 0)
			continue;
		if (k == sizeof starts / sizeof starts[0] - 1)
			break;
		starts[k] = b;
		lens[k++] = i - b;
		b = i + 2;
		i++;
	}
	starts[k] = b;
	lens[k++] = n - b;
	for (size_t j = k; j-- > 0;) {
		const char *q = p + starts[j];
		size_t m = lens[j];
		if (m == 0)
			continue; /* "a->" or "->b": nothing to show for the empty side */
		if (java_descriptor(q, m))
			q++, m--;
		rc = stack_add(s, q, m, j > 0 ? FK_ANNOT_INLINE : FK_ANNOT_NONE, line);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int parse(const struct fk_host *h, struct fk_input *in, struct fk_sink *sink, const void *op)
{
	const struct opts *o = op;
	struct stack s = { .h = h };
	/* The first three lines are dtrace's header (CPU ID FUNCTION:NAME, the
	 * probe, a blank line), and skipped whatever they hold: stackcollapse.pl
	 * and inferno do so, and a file they read must give the same stacks
	 * here.  -1, the old "when present" default, means the same. */
	long long skip = o && o->header_lines >= 0 ? o->header_lines : 3;
	bool after_cpu = false;
	/* a later shard starts mid-file: its first lines are records */
	bool at_start = h->input_start(in) == 0;
	const char *line;
	size_t len;
	int r, rc = 0;

	while ((r = h->getline(in, &line, &len)) > 0) {
		uint64_t ln = h->input_lineno(in);
		int cl;

		if ((long long)ln <= skip && at_start)
			continue;
		if (cpu_header(line, len)) {
			/* a second run appended to the same file */
			after_cpu = true;
			continue;
		}
		if (after_cpu) {
			after_cpu = false;
			if (s.n == 0 && memchr(line, ':', len) && !memchr(line, '`', len))
				continue; /* "  3  71224   :tick-60s" */
		}
		if ((cl = stack_count_line(&s, in, sink, line, len, ln)) < 0) {
			rc = cl;
			goto out;
		}
		if (cl > 0)
			continue;
		{
			size_t i = 0;
			while (i < len && is_space(line[i]))
				i++;
			if (i == len)
				continue;
		}
		rc = add_frame(&s, line, len, ln, o && o->includeoffset);
		if (rc < 0)
			goto out;
	}
out:
	return stack_count_end(&s, in, r, rc);
}

static bool starts_with(const char *s, size_t n, const char *lit)
{
	size_t k = strlen(lit);
	return n >= k && memcmp(s, lit, k) == 0;
}

static bool contains(const char *s, size_t n, const char *lit)
{
	size_t k = strlen(lit);
	for (size_t i = 0; i + k <= n; i++)
		if (memcmp(s + i, lit, k) == 0)
			return true;
	return false;
}

/* s[0..n) ends with OPEN digits CLOSE: "(4521)", "[4521]". */
static bool ends_with_id(const char *s, size_t n, char open, char close)
{
	size_t i = n;
	if (i < 3 || s[i - 1] != close)
		return false;
	i--;
	while (i > 0 && s[i - 1] >= '0' && s[i - 1] <= '9')
		i--;
	return i > 0 && i < n - 1 && s[i - 1] == open && i >= 2 && s[i - 2] == ' ';
}

/*
 * bcc's profile and stackcount print stacks the way DTrace does (frames, then
 * a count line), with marks DTrace never prints: the tool's banner
 * ("Sampling at 49 Hertz of ...", "Tracing 1 functions for \"submit_bio\"...";
 * DTraceToolkit's "Sampling... Hit Ctrl-C to end." is DTrace's), profile's
 * "    -                comm (pid)" line before each count, stackcount's
 * "    comm [pid]" line before a count and its closing "Detaching...",
 * offwaketime's "waker:" and "target:" lines.
 * Read as DTrace they lose a frame and gain a garbled root: such text is
 * not claimed.  (k: the line's indentation.)
 */
static bool bcc_mark(const char *s, size_t n, size_t k, size_t lineno)
{
	if (lineno <= 3 && ((starts_with(s, n, "Sampling at ") && contains(s, n, " Hertz of ")) ||
	                    (starts_with(s, n, "Tracing ") && contains(s, n, " functions for \""))))
		return true;
	if (n - k == 12 && memcmp(s + k, "Detaching...", 12) == 0)
		return true;
	if (k > 0 && (starts_with(s + k, n - k, "waker:  ") || starts_with(s + k, n - k, "target:  ")))
		return true; /* offwaketime's "    waker:           comm pid" */
	return k > 0 && n - k > 3 && s[k] == '-' && s[k + 1] == ' ' && s[k + 2] == ' ' &&
	       ends_with_id(s, n, '(', ')');
}

/* A frame names a function, a module or an address ("0x4a2f"): it holds
 * a letter.  Digits and punctuation alone ("2180,", "},": a JSON array's
 * items, pretty-printed) are no frame. */
static bool names_something(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if ((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') || s[i] == '_')
			return true;
	return false;
}

/*
 * Detection: the CPU/FUNCTION:NAME header is proof; without it, frame lines
 * holding a '`' (module`function) or one word with a letter in it, lines
 * holding only a count, and
 * nothing that looks like perf script's "comm pid time: event:" headers,
 * nor any of bcc's marks (bcc_mark).
 */
static int probe(const unsigned char *buf, size_t len)
{
	struct probe_window win = { buf, len, 0, 0 };
	const char *s;
	size_t n, ticks = 0, counts = 0, other = 0;
	bool header = false, comm_pid = false;

	while (probe_line(&win, &s, &n)) {
		size_t lines = win.lines, k0 = 0;
		double c;
		if (lines == 1 && cpu_header(s, n)) {
			header = true;
			continue;
		}
		if (header && lines <= 3)
			continue;
		while (k0 < n && is_space(s[k0]))
			k0++;
		if (bcc_mark(s, n, k0, lines))
			return 0;
		if (count_line(s, n, &c) != 0) {
			if (comm_pid)
				return 0; /* stackcount's "    comm [pid]" before the count */
			counts++;
			continue;
		}
		comm_pid = k0 > 0 && !memchr(s + k0, '`', n - k0) && ends_with_id(s, n, '[', ']');
		/* The parser skips the first three lines whatever they hold, as
		 * stackcollapse.pl does: they cannot speak against the format. */
		if (lines <= 3 && counts == 0 && ticks == 0)
			continue;
		size_t k = 0;
		while (k < n && is_space(s[k]))
			k++;
		if (k == n)
			continue;
		if (memchr(s + k, '\0', n - k)) {
			other++;
			continue;
		}
		if (k > 0 && (memchr(s + k, '`', n - k) ||
		              (n - k > 1 && !memchr(s + k, ' ', n - k) && !memchr(s + k, '\t', n - k) &&
		               names_something(s + k, n - k))))
			ticks++;
		else
			other++;
	}
	if (header && counts > 0)
		return 95;
	if (header)
		return 70;
	if (counts > 0 && ticks > 0)
		return probe_verdict(75, counts + ticks, other);
	return 0;
}

static const struct fk_option options[] = {
	FK_OPTION(FK_OPT_INT, "header-lines", "3", struct opts, header_lines,
	          "lines to skip at the start, whatever they hold, as stackcollapse.pl does"),
	FK_OPTION(FK_OPT_FLAG, "includeoffset", "0", struct opts, includeoffset,
	          "keep each frame's +0x offset but the leaf's (inferno's --includeoffset)"),
	FK_OPTION_END,
};

static struct fk_input_plugin plugin = {
	.h = {
		.name = "dtrace",
		.version = "1.0",
		.description = "DTrace stack()/ustack() aggregations",
		.options = options,
		.options_size = sizeof(struct opts),
	},
	.probe = probe,
	.sync = count_sync,
	.parse = parse,
	/* a FlameGraph format: names as the stackcollapse script leaves them */
	.demangle = FK_DEMANGLE_NO,
};

FLAMEKIT_REGISTER_INPUT(plugin)
