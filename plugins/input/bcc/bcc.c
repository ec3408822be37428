/*
 * Input plugin "bcc": the default (not -f) output of the bcc tools
 * profile, offcputime, offwaketime and stackcount, as their print
 * statements write it.  A record is its frames, one per indented line,
 * a line naming the process, and an indented count, then a blank line:
 *
 *     profile, offcputime               stackcount
 *         schedule                        do_sys_open
 *         do_nanosleep                    __x64_sys_openat
 *         --              (-d only)       --            (-d only)
 *         clock_nanosleep                 open64
 *         main                            main
 *         -                burn (4242)    burn [4242]   (not with -p)
 *             12                          7
 *
 * Both stacks print leaf first, the kernel's above the user's.
 * offwaketime prints the waker first, its stacks root first, then the
 * target's leaf first, between a "waker:" and a "target:" line:
 *
 *         waker:           sshd 1234
 *         main               <- waker user stack, root first
 *         -                  (-d only)
 *         try_to_wake_up     <- waker kernel stack, root first
 *         --               --
 *         schedule           <- target kernel stack, leaf first
 *         -                  (-d only)
 *         read               <- target user stack, leaf first
 *         target:          burn 4242
 *             5000
 *
 * Each record becomes one sample: the process name at the root, then the
 * printed frames in reverse order, then (offwaketime) the waker's name at
 * the top: "burn;main;clock_nanosleep;do_nanosleep;schedule 12", what the
 * tools print with -f (a "--" line between the stacks reads as the frame
 * "-" that -f -d prints; offwaketime's "--" stays "--").  The weight is
 * the tool's: samples (profile), microseconds of blocked time
 * (offcputime, offwaketime, given as the unit "us"), or event counts.
 */
#include <stdbool.h>
#include <string.h>

#include <flamekit/plugin.h>

#include "../common/count_sync.h"
#include "../common/probe.h"
#include "../common/stack.h"

/* The record being read: its frames as printed, and the names around them. */
struct record {
	struct stack frames;
	struct stack names;   /* [0] the process (root), [1] the waker (top) */
	bool has_comm, has_waker;
	uint64_t first;       /* its first line, 0 before any */
	struct fk_frameref *refs;
	size_t cap_refs;
};

static size_t indent(const char *s, size_t n)
{
	size_t i = 0;

	while (i < n && is_space(s[i]))
		i++;
	return i;
}

static size_t rtrim(const char *s, size_t n)
{
	while (n > 0 && is_space(s[n - 1]))
		n--;
	return n;
}

/* s[0..n) ends " (DIGITS)" (open '(') or " [DIGITS]" ('['), or " DIGITS"
 * (open ' '): the length before it, or 0. */
static size_t pid_suffix(const char *s, size_t n, char open)
{
	size_t e = n, d;

	if (open != ' ') {
		if (e == 0 || s[e - 1] != (open == '(' ? ')' : ']'))
			return 0;
		e--;
	}
	d = e;
	while (d > 0 && is_digit(s[d - 1]))
		d--;
	if (d == e)
		return 0;
	if (open != ' ') {
		if (d == 0 || s[d - 1] != open)
			return 0;
		d--;
	}
	if (d < 2 || s[d - 1] != ' ')
		return 0;
	return d - 1;
}

/* "KEY" then blanks then the rest: the rest's offset, or 0. */
static size_t keyword(const char *s, size_t n, const char *key)
{
	size_t k = strlen(key), i;

	if (n <= k || memcmp(s, key, k) != 0 || !is_space(s[k]))
		return 0;
	i = k;
	while (i < n && is_space(s[i]))
		i++;
	return i < n ? i : 0;
}

enum kind { FRAME, COMM, WAKER, TARGET, DELIM, WAKEDELIM };

/* What an indented line is, and the text it gives (name, len). */
static enum kind classify(const char *s, size_t n, size_t ind, const char **name, size_t *len)
{
	size_t r, c;

	*name = s;
	*len = n;
	/* most lines are frames: only these start or end like anything else */
	if (s[0] != '-' && s[0] != 'w' && s[0] != 't' && s[n - 1] != ']' && ind != 2)
		return FRAME;
	if (n == 1 && s[0] == '-')
		return DELIM;
	if (n == 2 && s[0] == '-' && s[1] == '-')
		return DELIM;
	if ((r = keyword(s, n, "--")) && n - r == 2 && s[r] == '-' && s[r + 1] == '-')
		return WAKEDELIM;
	if ((r = keyword(s, n, "-")) && (c = pid_suffix(s + r, n - r, '(')) > 0) {
		*name = s + r;
		*len = c;
		return COMM;
	}
	if ((r = keyword(s, n, "waker:")) && (c = pid_suffix(s + r, n - r, ' ')) > 0) {
		*name = s + r;
		*len = c;
		return WAKER;
	}
	if ((r = keyword(s, n, "target:")) && (c = pid_suffix(s + r, n - r, ' ')) > 0) {
		*name = s + r;
		*len = c;
		return TARGET;
	}
	if (ind >= 4 && (c = pid_suffix(s, n, '[')) > 0) {
		*len = c; /* stackcount's "COMM [PID]" */
		return COMM;
	}
	if (ind == 2) {
		/* stackcount -v: "ADDR SYMBOL", the address 16 wide */
		size_t a = 0;
		while (a < n && is_hex(s[a]))
			a++;
		if (a > 0 && a <= 16 && a < n && s[a] == ' ') {
			while (a < n && s[a] == ' ')
				a++;
			if (a < n) {
				*name = s + a;
				*len = n - a;
			}
		}
	}
	return FRAME;
}

static void record_reset(struct record *r)
{
	r->frames.n = r->frames.len = 0;
	r->names.n = r->names.len = 0;
	r->has_comm = r->has_waker = false;
	r->first = 0;
}

static void record_skip(const struct fk_host *h, struct fk_input *in, struct record *r, uint64_t last)
{
	for (uint64_t l = r->first; r->first && l <= last; l++)
		h->input_skip(in, l);
	record_reset(r);
}

static int record_push(const struct fk_host *h, struct fk_sink *sink, struct record *r, double count)
{
	size_t n = r->frames.n, k = 0;
	struct fk_sample smp;

	if (fk_vector_grow((void **)&r->refs, &r->cap_refs, n + 2, sizeof *r->refs, h->realloc) < 0)
		return FK_ERR_NOMEM;
	memset(r->refs, 0, (n + 2) * sizeof *r->refs);
	if (r->has_comm) {
		const struct frame *f = &r->names.v[r->has_waker ? 1 : 0];
		r->refs[k].name = r->names.text + f->off;
		r->refs[k++].len = f->len;
	}
	for (size_t i = n; i-- > 0; k++) {
		r->refs[k].name = r->frames.text + r->frames.v[i].off;
		r->refs[k].len = r->frames.v[i].len;
	}
	if (r->has_waker) {
		r->refs[k].name = r->names.text + r->names.v[0].off;
		r->refs[k++].len = r->names.v[0].len;
	}
	memset(&smp, 0, sizeof smp);
	smp.frames = r->refs;
	smp.nframes = k;
	smp.weight[0] = count;
	record_reset(r);
	return h->push(sink, &smp, NULL);
}

/* A line at the left margin: 0 when it is not one of the tools' headers
 * and trailers, else 1 (profile's header: samples), 2 (offcputime's or
 * offwaketime's: microseconds), 3 (another). */
static int margin_line(const char *s, size_t n)
{
	static const char *const known[] = { "Sampling at ", "Tracing off-CPU time (us) ",
	                                     "Tracing blocked time (us) ", "Tracing ",
	                                     "Detaching...", "WARNING: ", "WARN: " };

	for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
		size_t k = strlen(known[i]);
		if (n >= k && memcmp(s, known[i], k) == 0)
			return i == 0 ? 1 : i < 3 ? 2 : 3;
	}
	/* stackcount -T: "HH:MM:SS" */
	return n == 8 && s[2] == ':' && s[5] == ':' && is_digit(s[0]) && is_digit(s[7]) ? 3 : 0;
}

static int parse(const struct fk_host *h, struct fk_input *in, struct fk_sink *sink, const void *op)
{
	struct record r;
	const char *line;
	size_t len;
	int got, rc = 0;

	(void)op;
	memset(&r, 0, sizeof r);
	r.frames.h = r.names.h = h;
	while ((got = h->getline(in, &line, &len)) > 0) {
		uint64_t ln = h->input_lineno(in);
		size_t ind = indent(line, len), n, nlen;
		const char *name;
		double count;
		int cl;

		len = rtrim(line, len);
		if (ind >= len)
			continue;
		if (ind == 0) {
			int m = margin_line(line, len);
			if (m == 0)
				h->input_skip(in, ln);
			else if (m < 3 && h->sink_set_unit)
				h->sink_set_unit(sink, m == 1 ? "samples" : "us");
			continue;
		}
		if (!r.first)
			r.first = ln;
		if ((cl = count_line(line, len, &count)) != 0) {
			if (cl < 0 || (r.frames.n == 0 && !r.has_comm))
				record_skip(h, in, &r, ln); /* inexact, or a count alone */
			else if ((rc = record_push(h, sink, &r, count)) < 0)
				goto out;
			continue;
		}
		n = len - ind;
		switch (classify(line + ind, n, ind, &name, &nlen)) {
		case DELIM:
			rc = stack_add(&r.frames, "-", 1, FK_ANNOT_NONE, ln);
			break;
		case WAKEDELIM:
			rc = stack_add(&r.frames, "--", 2, FK_ANNOT_NONE, ln);
			break;
		case WAKER:
			if (r.frames.n || r.has_waker || r.has_comm) {
				record_skip(h, in, &r, ln);
				continue;
			}
			r.has_waker = true;
			rc = stack_add(&r.names, name, nlen, FK_ANNOT_NONE, ln);
			break;
		case COMM:
		case TARGET:
			if (r.has_comm) {
				record_skip(h, in, &r, ln);
				continue;
			}
			r.has_comm = true;
			rc = stack_add(&r.names, name, nlen, FK_ANNOT_NONE, ln);
			break;
		case FRAME:
			if (r.has_comm) {
				/* frames after the name line: not a bcc record */
				record_skip(h, in, &r, ln);
				continue;
			}
			rc = stack_add(&r.frames, name, nlen, FK_ANNOT_NONE, ln);
			break;
		}
		if (rc < 0)
			goto out;
	}
	if (got < 0) {
		rc = got;
		goto out;
	}
	if (r.first)
		rc = h->input_error(in, r.first, "this record has no count line (is the file truncated?)");
out:
	report_nomem(h, in, rc);
	stack_free(&r.frames);
	stack_free(&r.names);
	h->free(r.refs);
	return rc;
}

/* Detection: the tools' process lines ("-  comm (pid)", "waker:",
 * "target:", "comm [pid]") or headers, among frame and count lines. */
static int probe(const unsigned char *buf, size_t len)
{
	struct probe_window win = { buf, len, 0, 0 };
	size_t good = 0, other = 0, marks = 0, counts = 0;
	const char *s;
	size_t n;

	while (probe_text_line(&win, &s, &n, &other)) {
		size_t ind = indent(s, n), nlen;
		const char *name;
		double c;
		n = rtrim(s, n);
		if (ind >= n)
			continue;
		if (ind == 0) {
			int m = margin_line(s, n);
			if (m == 1 || m == 2 || (m == 3 && memcmp(s, "Tracing ", 8) == 0))
				marks++;
			else
				other++;
			continue;
		}
		if (count_line(s, n, &c) != 0) {
			counts++;
			good++;
			continue;
		}
		switch (classify(s + ind, n - ind, ind, &name, &nlen)) {
		case COMM:
		case WAKER:
		case TARGET:
		case WAKEDELIM:
			marks++;
			break;
		default:
			break;
		}
		good++;
	}
	if (marks == 0)
		return 0;
	if (counts == 0) /* cut by the window before the first count */
		return other == 0 ? 70 : 0;
	return probe_verdict(90, good + marks, other);
}

static struct fk_input_plugin plugin = {
	.h = {
		.name = "bcc",
		.version = "1.0",
		.description = "bcc profile, offcputime, offwaketime, stackcount (default output)",
	},
	.probe = probe,
	.sync = count_sync,
	.parse = parse,
	/* bcc's symbolizer demangles as __cxa_demangle does, argument
	 * lists included: names it left mangled come out as its others */
	.demangle = FK_DEMANGLE_FULL,
};

FLAMEKIT_REGISTER_INPUT(plugin)
