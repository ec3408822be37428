/*
 * Input plugin "sample": the call graph macOS's /usr/bin/sample prints
 * (`sample PID -file out.txt`), as stackcollapse-sample.awk reads it:
 *
 *     Call graph:
 *         2529 Thread_8749954   DispatchQueue_1: com.apple.main-thread  (serial)
 *         + 2529 start  (in libdyld.dylib) + 1  [0x7fff6a1b23d5]
 *         +   2400 -[NSApplication run]  (in AppKit) + 658  [0x7fff2f0a5e11]
 *         +   ! 2400 __psynch_cvwait  (in libsystem_kernel.dylib) + 10  [0x...]
 *         +   129 main  (in Safari) + 10  [0x10000abcd]
 *     Total number in stack (recursive counted multiple, when >=5):
 *
 * A line's depth is where its count starts: after four blanks, two
 * columns a level of the tree's guides (" ", "+", "!", ":", "|").  A
 * node's count includes its children's, so each node's own count (its
 * count less its children's) is its stack's weight.  A frame is
 * "module`function" (".dylib" dropped from the module; --no-modules: the
 * function alone), the thread line's text is the root frame.  As the
 * script does, stacks whose leaf is one of the waits it lists
 * (__psynch_cvwait, mach_msg_trap, ...) are left out, unless --waiting.  Unlike the script, a function name holding blanks
 * (Objective-C's "-[NSApplication run]", C++'s "f(int, char)") is kept
 * whole rather than cut to its first two words.  Each node's stack is made
 * from its parent's and one frame (push_child), so a deep tree costs its
 * size, not its size times its depth.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <flamekit/plugin.h>

#include "../common/probe.h"
#include "../common/stack.h"

#define MAX_DEPTH 4096

struct opts {
	int no_modules; /* FLAG: no "module`" before each function */
	int waiting;    /* FLAG: keep stacks ending in a wait */
};

static const struct fk_option options[] = {
	FK_OPTION(FK_OPT_FLAG, "no-modules", "0", struct opts, no_modules,
	          "no module before each function (the script's MODULES=0); AppKit`NSApplicationMain by default"),
	FK_OPTION(FK_OPT_FLAG, "waiting", "0", struct opts, waiting,
	          "keep the stacks whose leaf is a wait (__psynch_cvwait, mach_msg_trap...); the script drops them"),
	FK_OPTION_END,
};

static const char *const waits[] = { "__psynch_cvwait", "__select", "__semwait_signal", "__ulock_wait",
	                             "__wait4", "__workq_kernreturn", "kevent", "mach_msg_trap", "read",
	                             "semaphore_wait_trap" };

static bool is_wait(const char *fn, size_t n)
{
	for (size_t w = 0; w < sizeof waits / sizeof *waits; w++)
		if (strlen(waits[w]) == n && memcmp(fn, waits[w], n) == 0)
			return true;
	return false;
}

struct level {
	size_t off, len;   /* the frame's name in text */
	size_t fnlen;      /* the function's part of it (for the waits) */
	uint64_t self;     /* its count less its children's */
	uint64_t line;
	fk_node_t node;    /* its stack's node (push_child), or FK_NODE_NONE */
};

struct cs {
	const struct fk_host *h;
	struct fk_sink *sink;
	char *text;
	size_t tlen, tcap;
	struct level *lv;
	size_t n, cap;
	struct fk_frameref *refs;
	size_t cap_refs;
};

/* The depth of a call-graph line (its count's column), or -1. */
static long depth_of(const char *s, size_t n, size_t *count_at)
{
	size_t i = 4;

	if (n < 5 || memcmp(s, "    ", 4) != 0)
		return -1;
	while (i < n && (s[i] == ' ' || s[i] == '+' || s[i] == '!' || s[i] == ':' || s[i] == '|'))
		i++;
	if (i == n || !is_digit(s[i]) || (i - 4) % 2)
		return -1;
	*count_at = i;
	return (long)(i - 4) / 2;
}

/* Pop levels from the deepest to `to`, pushing each one's stack. */
static int pop_to(struct cs *c, const struct opts *o, size_t to)
{
	while (c->n > to) {
		struct level *leaf = &c->lv[c->n - 1];
		bool keep = leaf->self > 0 &&
		            (o->waiting || !is_wait(c->text + leaf->off + leaf->len - leaf->fnlen, leaf->fnlen));
		if (keep) {
			struct fk_sample smp;
			int rc;
			if (leaf->node != FK_NODE_NONE) {
				memset(&smp, 0, sizeof smp);
				smp.weight[0] = (double)leaf->self;
				if ((rc = c->h->push_node(c->sink, leaf->node, &smp)) < 0)
					return rc;
				goto popped;
			}
			if (fk_vector_grow((void **)&c->refs, &c->cap_refs, c->n,
			    sizeof *c->refs, c->h->realloc) < 0)
				return FK_ERR_NOMEM;
			for (size_t i = 0; i < c->n; i++) {
				c->refs[i] = frame_ref(c->text + c->lv[i].off, c->lv[i].len);
			}
			memset(&smp, 0, sizeof smp);
			smp.frames = c->refs;
			smp.nframes = c->n;
			smp.weight[0] = (double)leaf->self;
			if ((rc = c->h->push(c->sink, &smp, NULL)) < 0)
				return rc;
		}
	popped:
		c->tlen = leaf->off;
		c->n--;
	}
	return 0;
}

/* Append s (n bytes, ';' made ':') to the frame text. */
static int add_text(struct cs *c, const char *s, size_t n)
{
	if (text_add(c->h, &c->text, &c->tcap, c->tlen, s, n) < 0)
		return FK_ERR_NOMEM;
	c->tlen += n;
	return 0;
}

/* A node line: "COUNT name  (in module) + off  [addr]", or the thread's. */
static int node(struct cs *c, struct fk_input *in, const struct opts *o, const char *s, size_t n,
                size_t at, size_t depth, uint64_t ln)
{
	uint64_t count = 0;
	size_t i = at, b, e, fnlen;
	const char *mod = NULL, *p;
	size_t modlen = 0;
	struct level *lv;
	int rc;

	while (i < n && is_digit(s[i])) {
		if (count > 1000000000000000ull)
			return c->h->input_error(in, ln, "this count is too large");
		count = count * 10 + (uint64_t)(s[i++] - '0');
	}
	if (i == n || s[i] != ' ')
		return c->h->input_error(in, ln, "a count is followed by a name");
	while (i < n && s[i] == ' ')
		i++;
	b = i;
	e = n;
	/* "  (in module)" ends the name; what follows is the offset */
	for (p = s + b; p + 6 <= s + n; p++)
		if (memcmp(p, "  (in ", 6) == 0) {
			const char *close = memchr(p + 6, ')', (size_t)(s + n - p - 6));
			if (close) {
				mod = p + 6;
				modlen = (size_t)(close - mod);
				e = (size_t)(p - s);
			}
			break;
		}
	while (e > b && is_space(s[e - 1]))
		e--;
	if (e == b)
		return c->h->input_error(in, ln, "a node with no name");
	if (depth > c->n)
		return c->h->input_error(in, ln, "this line is %zu levels below the one before (one at most)",
		                         depth + 1 - c->n);
	if (depth >= MAX_DEPTH)
		return c->h->input_error(in, ln, "the call graph is deeper than %d levels", MAX_DEPTH);
	if ((rc = pop_to(c, o, depth)) < 0)
		return rc;
	if (depth > 0) {
		if (c->lv[depth - 1].self < count)
			return c->h->input_error(in, ln, "this count (%llu) is more than what its caller has left",
			                         (unsigned long long)count);
		c->lv[depth - 1].self -= count;
	}
	if (fk_vector_grow((void **)&c->lv, &c->cap, c->n + 1, sizeof *c->lv, c->h->realloc) < 0)
		return FK_ERR_NOMEM;
	lv = &c->lv[c->n];
	lv->off = c->tlen;
	if (mod && !o->no_modules && depth > 0) {
		size_t m = modlen;
		if (m > 6 && memcmp(mod + m - 6, ".dylib", 6) == 0)
			m -= 6;
		if ((rc = add_text(c, mod, m)) < 0 || (rc = add_text(c, "`", 1)) < 0)
			return rc;
	}
	fnlen = e - b;
	if ((rc = add_text(c, s + b, fnlen)) < 0)
		return rc;
	lv->len = c->tlen - lv->off;
	lv->fnlen = fnlen;
	lv->self = count;
	lv->line = ln;
	lv->node = FK_NODE_NONE;
	c->n++;
	/* a node's stack is its parent's and one frame, when the sink allows
	 * it; a wait's leaf is not made (it may be left out) */
	if (FK_HOST_HAS(c->h, push_child) && (depth == 0 || c->lv[depth - 1].node != FK_NODE_NONE) &&
	    !is_wait(c->text + c->tlen - fnlen, fnlen)) {
		struct fk_frameref fr;
		memset(&fr, 0, sizeof fr);
		fr.name = c->text + lv->off;
		fr.len = lv->len;
		if ((rc = c->h->push_child(c->sink, depth ? c->lv[depth - 1].node : FK_NODE_ROOT, &fr, &lv->node)) < 0)
			return rc;
	}
	return 0;
}

static int parse(const struct fk_host *h, struct fk_input *in, struct fk_sink *sink, const void *op)
{
	const struct opts *o = op;
	struct cs c;
	const char *line;
	size_t len;
	bool graph = false;
	int got, rc = 0;

	memset(&c, 0, sizeof c);
	c.h = h;
	c.sink = sink;
	if (h->sink_set_unit)
		h->sink_set_unit(sink, "samples");
	while ((got = h->getline(in, &line, &len)) > 0) {
		uint64_t ln = h->input_lineno(in);
		size_t at;
		long d;
		if (len >= 11 && memcmp(line, "Call graph:", 11) == 0) {
			if ((rc = pop_to(&c, o, 0)) < 0)
				goto out;
			graph = true;
			continue;
		}
		if (len >= 12 && memcmp(line, "Total number", 12) == 0) {
			if ((rc = pop_to(&c, o, 0)) < 0)
				goto out;
			graph = false;
			continue;
		}
		if (!graph || probe_ignorable(line, len))
			continue; /* the report's header and its other sections */
		if ((d = depth_of(line, len, &at)) < 0) {
			h->input_skip(in, ln);
			continue;
		}
		if ((rc = node(&c, in, o, line, len, at, (size_t)d, ln)) < 0)
			goto out;
	}
	if (got < 0) {
		rc = got;
		goto out;
	}
	rc = pop_to(&c, o, 0);
out:
	report_nomem(h, in, rc);
	h->free(c.text);
	h->free(c.lv);
	h->free(c.refs);
	return rc;
}

/* Detection: "Call graph:" then lines of the tree. */
static int probe(const unsigned char *buf, size_t len)
{
	struct probe_window win = { buf, len, 0, 0 };
	size_t good = 0, other = 0, nodes = 0;
	bool graph = false, seen = false;
	const char *s;
	size_t n;

	while (probe_line(&win, &s, &n)) {
		size_t at;
		if (memchr(s, '\0', n)) {
			other++;
			continue;
		}
		if (n >= 11 && memcmp(s, "Call graph:", 11) == 0) {
			graph = seen = true;
			good++;
			continue;
		}
		if (n >= 12 && memcmp(s, "Total number", 12) == 0) {
			graph = false;
			continue;
		}
		if (!graph || probe_ignorable(s, n))
			continue;
		if (depth_of(s, n, &at) >= 0 && memchr(s + at, ' ', n - at)) {
			nodes++;
			good++;
		} else
			other++;
	}
	if (!seen || nodes == 0)
		return 0;
	return probe_verdict(90, good, other);
}

static struct fk_input_plugin plugin = {
	.h = {
		.name = "sample",
		.version = "1.0",
		.description = "macOS /usr/bin/sample call graphs, as stackcollapse-sample.awk",
		.options = options,
		.options_size = sizeof(struct opts),
	},
	.probe = probe,
	.parse = parse,
	/* sample prints C++ names demangled, argument lists included */
	.demangle = FK_DEMANGLE_FULL,
};

FLAMEKIT_REGISTER_INPUT(plugin)
