/*
 * Input plugin "threaddump": thread dumps, one sample per thread stack
 * (the "poor man's profiler": dumps taken in a loop add up), in three
 * dialects told apart line by line, so that one file may hold several:
 *
 *   gdb's `thread apply all bt`:
 *     Thread 2 (Thread 0x7f3b... (LWP 3548) "spin-1"):
 *     #0  0x0000563d61a0f19e in spin_leaf () at threads.c:16
 *     #1  spin_mid () at threads.c:21          <- an inlined frame
 *   elfutils' eu-stack:
 *     PID 3547 - threads
 *     TID 3548:
 *     #0  0x0000563d61a0f19a spin_leaf
 *   jstack / jcmd PID Thread.print:
 *     "spin-1" #12 daemon prio=5 ... tid=0x00007f1f... nid=0x307a runnable
 *        java.lang.Thread.State: RUNNABLE
 *     	at Threads.spinLeaf(Threads.java:8)
 *     	- locked <0x000000069ec02f40> (a java.lang.Object)
 *
 * One plugin rather than three: the dialects share everything but the
 * line shapes (records, a thread's name at the root, its state, labels),
 * and a dump tool's output is told by its own marks, not by its name.
 *
 * A sample's frames are the thread's name (gdb's and jstack's quoted name;
 * eu-stack names none, so its samples have no such frame) unless
 * --root=none, then the frames root first.  gdb's frame is
 * the function without its arguments, file or library ("??" reads as the
 * address); eu-stack's is its symbol; jstack's the method without its
 * location.  The thread's id, name and (jstack) state reach the sample as
 * its tid, comm and the labels "thread" and "state"; --state=LIST keeps
 * only threads in those states (async-profiler's --state).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <flamekit/plugin.h>

#include "../common/line_sync.h"
#include "../common/probe.h"
#include "../common/stack.h"

struct opts {
	const char *root;  /* STRING: "thread" (default) or "none" */
	const char *state; /* STRING: comma-separated states kept, or NULL */
};

static const struct fk_option options[] = {
	FK_OPTION(FK_OPT_STRING, "root", "thread", struct opts, root,
	          "the root frame: thread (the thread's name, where the dump gives one) or none"),
	FK_OPTION(FK_OPT_STRING, "state", NULL, struct opts, state,
	          "keep only threads in these states (comma-separated, e.g. RUNNABLE,BLOCKED; jstack)"),
	FK_OPTION_END,
};

struct rec {
	struct stack frames;   /* leaf first */
	char name[256], state[64];
	size_t nlen, slen;
	int64_t tid;
	uint64_t first;        /* line of its header, 0 outside a record */
	struct fk_frameref *refs;
	size_t cap_refs;
};

static bool starts(const char *s, size_t n, const char *p)
{
	size_t m = strlen(p);
	return n >= m && memcmp(s, p, m) == 0;
}

static void copy(char *dst, size_t cap, size_t *len, const char *s, size_t n)
{
	if (n > cap)
		n = cap;
	memcpy(dst, s, n);
	*len = n;
}

static int64_t number(const char *s, size_t n, bool hex)
{
	int64_t v = 0;
	size_t i = 0;

	if (hex && n >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		i = 2;
	for (; i < n && (hex ? is_hex(s[i]) : is_digit(s[i])); i++) {
		int d = is_digit(s[i]) ? s[i] - '0' : (s[i] | 0x20) - 'a' + 10;
		if (v > (INT32_MAX - d) / (hex ? 16 : 10))
			return -1;
		v = v * (hex ? 16 : 10) + d;
	}
	return v;
}

static const char *find(const char *s, size_t n, const char *p)
{
	size_t m = strlen(p);

	for (size_t i = 0; i + m <= n; i++)
		if (memcmp(s + i, p, m) == 0)
			return s + i;
	return NULL;
}

/* gdb: "Thread N (...(LWP n) "name"):" */
static bool gdb_header(const char *s, size_t n)
{
	size_t i = 7;

	if (!starts(s, n, "Thread ") || n < 11 || s[n - 1] != ':' || s[n - 2] != ')')
		return false;
	while (i < n && is_digit(s[i]))
		i++;
	return i > 7 && i + 1 < n && s[i] == ' ' && s[i + 1] == '(';
}

/* eu-stack: "TID N:" */
static bool eu_tid(const char *s, size_t n)
{
	size_t i = 4;

	if (!starts(s, n, "TID ") || s[n - 1] != ':')
		return false;
	while (i < n - 1 && is_digit(s[i]))
		i++;
	return i > 4 && i == n - 1;
}

/* eu-stack: "PID N - process" (or "- thread") */
static size_t eu_pid(const char *s, size_t n)
{
	size_t i = 4;

	if (!starts(s, n, "PID "))
		return 0;
	while (i < n && is_digit(s[i]))
		i++;
	return i > 4 && i + 3 <= n && memcmp(s + i, " - ", 3) == 0 ? i + 3 : 0;
}

/* jstack: "\"name\" ..." with tid= or nid= after the closing quote, or a
 * VM thread ("\"VM Thread\" os_prio=0 ... nid=0x2fd3 runnable"). */
static const char *jstack_header(const char *s, size_t n)
{
	const char *q;

	if (n < 3 || s[0] != '"')
		return NULL;
	for (q = s + n - 1; q > s && *q != '"'; q--)
		;
	if (q == s || !find(q, (size_t)(s + n - q), " nid="))
		return NULL;
	return q;
}

/* "#N  ": the index after the blanks, 0 when not a frame line. */
static size_t frame_no(const char *s, size_t n)
{
	size_t i = 1;

	if (n < 3 || s[0] != '#')
		return 0;
	while (i < n && is_digit(s[i]))
		i++;
	if (i == 1 || i >= n || s[i] != ' ')
		return 0;
	while (i < n && s[i] == ' ')
		i++;
	return i < n ? i : 0;
}

/* A "#N" line of gdb or eu-stack: the frame's name in *name and *len. */
static void native_frame(const char *s, size_t n, const char **name, size_t *len)
{
	size_t a = 0;
	int depth = 0;

	if (n > 2 && s[0] == '0' && s[1] == 'x') {
		for (a = 2; a < n && is_hex(s[a]); a++)
			;
		if (a + 4 <= n && memcmp(s + a, " in ", 4) == 0) {
			s += a + 4; /* gdb with an address */
			n -= a + 4;
		} else if (a < n && s[a] == ' ') {
			*name = s + a + 1; /* eu-stack: the symbol is the rest */
			*len = n - a - 1;
			while (*len > 0 && is_space((*name)[*len - 1]))
				(*len)--;
			if (*len == 0) {
				*name = s;
				*len = a;
			}
			return;
		} else {
			*name = s; /* an address alone */
			*len = a;
			return;
		}
	}
	/* gdb: "NAME (ARGS) at FILE:LINE", "NAME (ARGS) from LIB" */
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '<')
			depth++;
		else if (s[i] == '>' && depth > 0)
			depth--;
		else if (depth == 0 && s[i] == ' ' && i + 1 < n && s[i + 1] == '(') {
			n = i;
			break;
		}
	}
	if (n == 2 && memcmp(s, "??", 2) == 0 && a > 0) {
		*name = s - a - 4; /* the address stands for it */
		*len = a;
		return;
	}
	*name = s;
	*len = n;
}

/* The record ends: pushed when kept. */
static int flush(const struct fk_host *h, struct fk_sink *sink, const struct opts *o, struct rec *r)
{
	struct fk_sample smp;
	struct fk_attr attrs[2];
	struct fk_sample_ext ext = FK_SAMPLE_EXT_INIT;
	bool root = !o->root || strcmp(o->root, "none") != 0;
	size_t k = 0, na = 0;

	if (!r->first)
		return 0;
	r->first = 0;
	if (o->state && *o->state) {
		const char *p = o->state;
		bool keep = false;
		while (*p && !keep) {
			size_t m = strcspn(p, ",");
			keep = r->slen > 0 && m == r->slen && strncasecmp(p, r->state, m) == 0;
			p += m;
			if (*p == ',')
				p++;
		}
		if (!keep) {
			r->frames.n = r->frames.len = 0;
			return 0;
		}
	}
	if (fk_vector_grow((void **)&r->refs, &r->cap_refs, r->frames.n + 1, sizeof *r->refs,
	    h->realloc) < 0)
		return FK_ERR_NOMEM;
	if (root && r->nlen > 0) {
		r->refs[k++] = frame_ref(r->name, r->nlen);
	}
	for (size_t i = r->frames.n; i-- > 0; k++) {
		r->refs[k] = frame_ref(r->frames.text + r->frames.v[i].off, r->frames.v[i].len);
	}
	r->frames.n = r->frames.len = 0;
	if (k == 0)
		return 0;
	memset(&smp, 0, sizeof smp);
	smp.frames = r->refs;
	smp.nframes = k;
	smp.weight[0] = 1;
	if (r->tid >= 0) {
		smp.tid = (int32_t)r->tid;
		smp.flags |= FK_SAMPLE_TID;
	}
	if (r->nlen) {
		smp.comm = r->name;
		smp.comm_len = r->nlen;
		smp.flags |= FK_SAMPLE_COMM;
		attrs[na++] = (struct fk_attr){ "thread", 6, r->name, r->nlen };
	}
	if (r->slen)
		attrs[na++] = (struct fk_attr){ "state", 5, r->state, r->slen };
	if (na && FK_HOST_HAS(h, push_ext)) {
		ext.attrs = attrs;
		ext.nattrs = na;
		return h->push_ext(sink, FK_NODE_NONE, &smp, &ext, NULL);
	}
	return h->push(sink, &smp, NULL);
}

static void open_rec(struct rec *r, uint64_t ln)
{
	r->first = ln;
	r->nlen = r->slen = 0;
	r->tid = -1;
	r->frames.n = r->frames.len = 0;
}

/* Lines gdb prints around the backtraces. */
static bool gdb_noise(const char *s, size_t n)
{
	return (n > 1 && s[0] == '[' && s[n - 1] == ']') || starts(s, n, "Using host libthread_db") ||
	       starts(s, n, "Backtrace stopped:") || starts(s, n, "(More stack frames follow...)");
}

/* Lines of a jstack dump outside the stacks. */
static bool jstack_noise(const char *s, size_t n)
{
	return starts(s, n, "Full thread dump ") || starts(s, n, "Threads class SMR info:") ||
	       starts(s, n, "_java_thread_list=") || starts(s, n, "JNI global refs:") ||
	       starts(s, n, "Locked ownable synchronizers:") || starts(s, n, "No compile task") ||
	       (n > 0 && s[0] == '}') || (n >= 2 && s[0] == '0' && s[1] == 'x' && s[n - 1] == ',') ||
	       (n >= 2 && s[0] == '0' && s[1] == 'x' && find(s, n, ", ")) || (n >= 2 && s[0] == '-' && s[1] == ' ');
}

/* One line; *skip set when it is unreadable. */
static int line_read(const struct fk_host *h, struct fk_sink *sink, const struct opts *o, struct rec *r,
                     const char *line, size_t len, uint64_t ln, bool *skip)
{
	const char *s = line, *q;
	size_t n = len, i, p;
	int rc;

	while (n > 0 && is_space(s[n - 1]))
		n--;
	if (n == 0)
		return flush(h, sink, o, r);
	if (gdb_header(line, n)) {
		const char *lwp = find(line, n, "(LWP ");
		if ((rc = flush(h, sink, o, r)) < 0)
			return rc;
		open_rec(r, ln);
		if (lwp)
			r->tid = number(lwp + 5, (size_t)(line + n - lwp - 5), false);
		if (n >= 4 && line[n - 3] == '"') {
			for (q = line + n - 4; q > line && *q != '"'; q--)
				;
			if (*q == '"')
				copy(r->name, sizeof r->name, &r->nlen, q + 1, (size_t)(line + n - 3 - q - 1));
		}
		return 0;
	}
	if (eu_tid(line, n)) {
		if ((rc = flush(h, sink, o, r)) < 0)
			return rc;
		open_rec(r, ln);
		r->tid = number(line + 4, n - 5, false);
		return 0;
	}
	if (eu_pid(line, n)) /* "PID N - process": no name */
		return flush(h, sink, o, r);
	if ((q = jstack_header(line, n))) {
		const char *nid = find(q, (size_t)(line + n - q), " nid=");
		if ((rc = flush(h, sink, o, r)) < 0)
			return rc;
		open_rec(r, ln);
		copy(r->name, sizeof r->name, &r->nlen, line + 1, (size_t)(q - line - 1));
		r->tid = number(nid + 5, (size_t)(line + n - nid - 5), true);
		return 0;
	}
	for (i = 0; i < n && is_space(s[i]); i++)
		;
	s += i;
	n -= i;
	if ((p = frame_no(s, n))) {
		const char *name;
		size_t nl;
		if (!r->first) {
			*skip = true;
			return 0;
		}
		native_frame(s + p, n - p, &name, &nl);
		if (nl == 0) {
			*skip = true; /* a frame with no name */
			return 0;
		}
		return stack_add(&r->frames, name, nl, FK_ANNOT_NONE, ln);
	}
	if (starts(s, n, "at ") && r->first) {
		const char *paren = memchr(s + 3, '(', n - 3);
		size_t nl = paren ? (size_t)(paren - s - 3) : n - 3;
		if (nl == 0) {
			*skip = true;
			return 0;
		}
		return stack_add(&r->frames, s + 3, nl, FK_ANNOT_NONE, ln);
	}
	if (starts(s, n, "java.lang.Thread.State: ") && r->first) {
		size_t b = 24, e = b;
		while (e < n && !is_space(s[e]))
			e++;
		copy(r->state, sizeof r->state, &r->slen, s + b, e - b);
		return 0;
	}
	if (gdb_noise(s, n) || jstack_noise(s, n))
		return 0;
	if (!r->first && ((n > 2 && s[0] == '0' && s[1] == 'x' && find(s, n, " in ")) ||
	                  (is_digit(s[0]) && memchr(s, '\t', n)) || starts(s, n, "PID:") ||
	                  (is_digit(s[0]) && n == 19 && s[4] == '-' && s[10] == ' ')))
		return 0; /* gdb's stop location and source line, jcmd's PID, jstack's date */
	*skip = true;
	return 0;
}

static int parse(const struct fk_host *h, struct fk_input *in, struct fk_sink *sink, const void *op)
{
	const struct opts *o = op;
	struct rec r;
	const char *line;
	size_t len;
	int got, rc = 0;

	if (o->root && strcmp(o->root, "thread") != 0 && strcmp(o->root, "none") != 0)
		return h->input_error(in, 0, "--root takes thread or none, not \"%s\"", o->root);
	memset(&r, 0, sizeof r);
	r.frames.h = h;
	r.tid = -1;
	if (h->sink_set_unit)
		h->sink_set_unit(sink, "samples");
	while ((got = h->getline(in, &line, &len)) > 0) {
		bool skip = false;
		uint64_t ln = h->input_lineno(in);
		if ((rc = line_read(h, sink, o, &r, line, len, ln, &skip)) < 0)
			goto out;
		if (skip)
			h->input_skip(in, ln);
	}
	if (got < 0) {
		rc = got;
		goto out;
	}
	rc = flush(h, sink, o, &r);
out:
	report_nomem(h, in, rc);
	stack_free(&r.frames);
	h->free(r.refs);
	return rc;
}

/* Records start at headers: every record header of the three. */
static bool header(const char *s, size_t n)
{
	if (n > 0 && s[n - 1] == '\r')
		n--;
	return gdb_header(s, n) || eu_tid(s, n) || eu_pid(s, n) || jstack_header(s, n);
}

LINE_SYNC(sync_records, header)

/* Detection: record headers and frame lines of one of the dialects. */
static int probe(const unsigned char *buf, size_t len)
{
	struct probe_window win = { buf, len, 0, 0 };
	size_t good = 0, other = 0, heads = 0, frames = 0;
	const char *s;
	size_t n;

	while (probe_text_line(&win, &s, &n, &other)) {
		size_t i = 0;
		if (gdb_header(s, n) || eu_tid(s, n) || eu_pid(s, n) || jstack_header(s, n)) {
			heads++;
			good++;
			continue;
		}
		while (i < n && is_space(s[i]))
			i++;
		if (frame_no(s + i, n - i) || (i > 0 && starts(s + i, n - i, "at ") && memchr(s, '(', n)) ||
		    starts(s + i, n - i, "java.lang.Thread.State: ")) {
			frames++;
			good++;
			continue;
		}
		if (probe_ignorable(s, n) || gdb_noise(s + i, n - i) || jstack_noise(s + i, n - i))
			continue;
		other++;
	}
	if (heads == 0 || frames == 0)
		return 0;
	return probe_verdict(90, good, other);
}

static struct fk_input_plugin plugin = {
	.h = {
		.name = "threaddump",
		.version = "1.0",
		.description = "thread dumps: gdb's thread apply all bt, eu-stack, jstack (a sample per thread)",
		.options = options,
		.options_size = sizeof(struct opts),
	},
	.probe = probe,
	.sync = sync_records,
	.parse = parse,
	/* gdb prints names demangled already; eu-stack demangles
	 * (argument lists included) unless -r, jstack's are Java: full */
	.demangle = FK_DEMANGLE_FULL,
};

FLAMEKIT_REGISTER_INPUT(plugin)
