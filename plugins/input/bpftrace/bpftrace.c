/*
 * Input plugin "bpftrace": the maps bpftrace prints when it exits (or on
 * print()), whose keys hold stacks, as of
 *
 *     bpftrace -e 'profile:hz:999 { @[kstack, ustack, comm] = count(); }'
 *
 * bpftrace prints a map entry as "@NAME[" + the key's parts joined by ", "
 * + "]: " + the value.  A stack part is "\n" followed by one line per frame,
 * leaf first; an empty stack is "".  So a record reads
 *
 *     @[                                  <- "@[" then kstack's "\n"
 *         schedule+45                     <- kstack, leaf first
 *         do_nanosleep+112
 *     ,                                   <- ", " then ustack's "\n"
 *         clock_nanosleep+91
 *         main+38
 *     , sleep]: 7                         <- ", " comm "]: " count
 *
 * and "@[, " opens one whose kstack is empty, ", , sleep]: 7" closes one
 * whose ustack is.  Scalar parts may come first too ("@[burn, 4242, " then
 * the stack, then "]: 3").  Inside a record, a line starting with ',' or
 * ']' carries key text, every other line is a frame: indented in the
 * default mode, "\tADDR sym+off (module)" in the perf mode (read as
 * "sym+off", or "0xADDR" when unresolved, as the default mode prints it),
 * a bare hex address in the raw mode (read as "0xADDR").
 *
 * Each record becomes one sample, root first: the scalar parts in key
 * order (comm, pid, ...), then the stacks, the last key part's nearest the
 * root, each root first.  For @[kstack, ustack, comm] that is
 * "comm;user frames;kernel frames", as stackcollapse-bpftrace.pl prints
 * it, without the ", " frames the script keeps between two stacks.  Maps
 * whose keys hold no stack (@start[tid]: 123), histograms and printf output
 * are skipped and counted; every map with stacks is read unless --map
 * names one.
 */
#include <stdbool.h>
#include <string.h>

#include <flamekit/plugin.h>

#include "../common/line_sync.h"
#include "../common/probe.h"
#include "../common/stack.h"

struct opts {
	const char *map; /* STRING: read only this map ("@", "@name"), or NULL */
};

static const struct fk_option options[] = {
	FK_OPTION(FK_OPT_STRING, "map", NULL, struct opts, map,
	          "read only this map (@ for the unnamed one, or @NAME); every map with stacks by default"),
	FK_OPTION_END,
};

/* The record being read: its stacks' frames in reading order, its key
 * text with each stack replaced by '\001', its scalar parts. */
struct record {
	struct stack frames;
	struct stack scalars;
	char *key;
	size_t klen, kcap;
	bool in_stack;        /* the last line was a frame */
	uint64_t first;       /* line of its "@[", 0 outside a record */
	bool wanted;          /* of the map --map names (or no --map) */
	struct fk_frameref *refs;
	size_t cap_refs;
};

static bool is_ident(char c)
{
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c);
}

/* "@" IDENT* "[": the length up to and with the '[', else 0. */
static size_t opener(const char *s, size_t n)
{
	size_t i = 1;

	if (n < 2 || s[0] != '@')
		return 0;
	while (i < n && is_ident(s[i]))
		i++;
	return i < n && s[i] == '[' ? i + 1 : 0;
}

/* Where "]: COUNT" ends the line s: the index of its ']', and the count
 * (-1 when the digits are too many to be exact).  -1 when the line does
 * not end so. */
static long closer(const char *s, size_t n, double *count)
{
	size_t e = n, d;

	while (e > 0 && is_space(s[e - 1]))
		e--;
	d = e;
	while (d > 0 && is_digit(s[d - 1]))
		d--;
	if (d == e || d < 3 || s[d - 1] != ' ' || s[d - 2] != ':' || s[d - 3] != ']')
		return -1;
	if (e - d > 15)
		*count = -1;
	else {
		double c = 0;
		for (size_t j = d; j < e; j++)
			c = c * 10 + (s[j] - '0');
		*count = c;
	}
	return (long)(d - 3);
}

static bool has_colon_close(const char *s, size_t n)
{
	for (size_t i = 0; i + 1 < n; i++)
		if (s[i] == ']' && s[i + 1] == ':')
			return true;
	return false;
}

static int key_add(const struct fk_host *h, struct record *r, const char *s, size_t n)
{
	if (fk_vector_grow((void **)&r->key, &r->kcap, r->klen + n + 1, 1, h->realloc) < 0)
		return FK_ERR_NOMEM;
	memcpy(r->key + r->klen, s, n);
	r->klen += n;
	/* ", " at a line's end may have lost its blank (an editor) */
	if (n > 0 && s[n - 1] == ',')
		r->key[r->klen++] = ' ';
	return 0;
}

/* A frame line: the name it stands for, in buf when it must be rewritten. */
static size_t frame_name(const char *s, size_t n, const char **name, char *buf, size_t cap)
{
	size_t i = 0, a;
	bool indented = n > 0 && is_space(s[0]);

	while (i < n && is_space(s[i]))
		i++;
	while (n > i && is_space(s[n - 1]))
		n--;
	s += i;
	n -= i;
	*name = s;
	for (a = 0; a < n && is_hex(s[a]); a++)
		;
	if (a == n && a > 0 && !indented && a + 3 <= cap) {
		/* raw mode: the address alone */
		memcpy(buf, "0x", 2);
		memcpy(buf + 2, s, a);
		*name = buf;
		return a + 2;
	}
	if (a > 0 && a < n && s[a] == ' ' && n > a + 1) {
		/* perf mode: "ADDR sym+off (module)" */
		const char *sym = s + a + 1;
		size_t m = n - a - 1;
		if (m > 0 && sym[m - 1] == ')') {
			for (size_t k = m - 1; k > 0; k--)
				if (sym[k] == '(') {
					if (sym[k - 1] == ' ')
						m = k - 1;
					break;
				}
		}
		if (m == 9 && memcmp(sym, "[unknown]", 9) == 0 && a + 3 <= cap) {
			memcpy(buf, "0x", 2);
			memcpy(buf + 2, s, a);
			*name = buf;
			return a + 2;
		}
		if (m > 0) {
			*name = sym;
			return m;
		}
	}
	return n;
}

/* Every line of the record from its "@[" to `last` is counted skipped. */
static void record_skip(const struct fk_host *h, struct fk_input *in, struct record *r, uint64_t last)
{
	for (uint64_t l = r->first; l <= last; l++)
		h->input_skip(in, l);
	r->first = 0;
}

/* Push the record: scalars in key order, then its frames reversed. */
static int record_push(const struct fk_host *h, struct fk_sink *sink, struct record *r, double count)
{
	size_t ns = r->scalars.n, nf = r->frames.n, k = 0;
	struct fk_sample smp;

	if (fk_vector_grow((void **)&r->refs, &r->cap_refs, ns + nf, sizeof *r->refs,
	    h->realloc) < 0)
		return FK_ERR_NOMEM;
	for (size_t i = 0; i < ns; i++, k++) {
		r->refs[k] = frame_ref(r->scalars.text + r->scalars.v[i].off, r->scalars.v[i].len);
	}
	for (size_t i = nf; i-- > 0; k++) {
		r->refs[k] = frame_ref(r->frames.text + r->frames.v[i].off, r->frames.v[i].len);
	}
	memset(&smp, 0, sizeof smp);
	smp.frames = r->refs;
	smp.nframes = k;
	smp.weight[0] = count;
	return h->push(sink, &smp, NULL);
}

/* The record's key is whole: split it on ", " into its parts.  Returns 1
 * when it has a stack part (empty or not), 0 when it is a map of scalars,
 * or a negative status. */
static int record_key(struct record *r, uint64_t line)
{
	const char *s = r->key, *end = r->key + r->klen;
	int stacks = 0;

	for (;;) {
		const char *p = s, *sep = NULL;
		while (p + 1 < end) {
			if (p[0] == ',' && p[1] == ' ') {
				sep = p;
				break;
			}
			p++;
		}
		if (!sep)
			sep = end;
		if (sep - s == 1 && s[0] == '\001')
			stacks = 1;
		else if (sep == s)
			stacks = 1; /* an empty stack */
		else if (memchr(s, '\001', (size_t)(sep - s)))
			return 0; /* a stack glued to other text: not bpftrace's */
		else if (stack_add(&r->scalars, s, (size_t)(sep - s), FK_ANNOT_NONE, line) < 0)
			return FK_ERR_NOMEM;
		if (sep == end)
			break;
		s = sep + 2;
	}
	return stacks;
}

static bool wanted(const struct opts *o, const char *line, size_t open)
{
	size_t n;

	if (!o->map || !*o->map)
		return true;
	n = strlen(o->map);
	return n == open - 1 && memcmp(o->map, line, n) == 0;
}

/* A key line, or the text after "@NAME[": 1 when it closed the record. */
static int key_line(const struct fk_host *h, struct fk_input *in, struct fk_sink *sink,
                    struct record *r, const char *s, size_t n, uint64_t ln)
{
	double count = 0;
	long close = closer(s, n, &count);
	int rc, stacks;

	if (close < 0) {
		if (has_colon_close(s, n)) {
			record_skip(h, in, r, ln); /* a histogram, a fraction... */
			return 1;
		}
		r->in_stack = false;
		return key_add(h, r, s, n);
	}
	if ((rc = key_add(h, r, s, (size_t)close)) < 0)
		return rc;
	if ((stacks = record_key(r, ln)) < 0)
		return stacks;
	if (!r->wanted) {
		r->first = 0;
		return 1;
	}
	if (stacks == 0 || count < 0 || r->frames.n + r->scalars.n == 0) {
		/* no stack, an inexact count, or nothing but empty stacks */
		record_skip(h, in, r, ln);
		return 1;
	}
	r->first = 0;
	if ((rc = record_push(h, sink, r, count)) < 0)
		return rc;
	return 1;
}

static void record_reset(struct record *r, uint64_t ln)
{
	r->frames.n = r->frames.len = 0;
	r->scalars.n = r->scalars.len = 0;
	r->klen = 0;
	r->in_stack = false;
	r->first = ln;
}

static int frame_line(struct record *r, const char *line, size_t len, uint64_t ln)
{
	char buf[40];
	const char *name;
	size_t n;
	int rc;

	for (n = 0; n < len && is_space(line[n]); n++)
		;
	if (n == len)
		return 0; /* a blank line inside a record says nothing */
	n = frame_name(line, len, &name, buf, sizeof buf);
	if (!r->in_stack) {
		if ((rc = key_add(r->frames.h, r, "\001", 1)) < 0)
			return rc;
		r->in_stack = true;
	}
	return stack_add(&r->frames, name, n, FK_ANNOT_NONE, ln);
}

static bool noise(const char *s, size_t n)
{
	size_t i = 0;

	while (i < n && is_space(s[i]))
		i++;
	return i == n || (n - i >= 10 && memcmp(s + i, "Attaching ", 10) == 0) ||
	       (n - i >= 9 && memcmp(s + i, "Attached ", 9) == 0);
}

static int parse(const struct fk_host *h, struct fk_input *in, struct fk_sink *sink, const void *op)
{
	const struct opts *o = op;
	struct record r;
	const char *line;
	size_t len;
	int got, rc = 0;

	memset(&r, 0, sizeof r);
	r.frames.h = r.scalars.h = h;
	while ((got = h->getline(in, &line, &len)) > 0) {
		uint64_t ln = h->input_lineno(in);
		size_t open = opener(line, len);

		if (open && r.first) {
			rc = h->input_error(in, r.first, "this record has no closing ']: COUNT' line "
			                    "(a new one starts at line %llu)", (unsigned long long)ln);
			goto out;
		}
		if (open) {
			record_reset(&r, ln);
			r.wanted = wanted(o, line, open);
			rc = key_line(h, in, sink, &r, line + open, len - open, ln);
		} else if (r.first && len > 0 && (line[0] == ',' || line[0] == ']')) {
			rc = key_line(h, in, sink, &r, line, len, ln);
		} else if (r.first) {
			rc = frame_line(&r, line, len, ln);
		} else {
			if (!noise(line, len))
				h->input_skip(in, ln); /* other maps, printf output */
			continue;
		}
		if (rc < 0)
			goto out;
		rc = 0;
	}
	if (got < 0) {
		rc = got;
		goto out;
	}
	if (r.first)
		rc = h->input_error(in, r.first, "this record has no closing ']: COUNT' line "
		                    "(is the file truncated?)");
out:
	report_nomem(h, in, rc);
	stack_free(&r.frames);
	stack_free(&r.scalars);
	h->free(r.key);
	h->free(r.refs);
	return rc;
}

/* A record starts at every line that starts "@NAME[": no other line of a
 * record does (frames are indented or hex, key lines start ',' or ']'). */
static bool starts_record(const char *s, size_t n)
{
	return opener(s, n) != 0;
}

LINE_SYNC(sync_records, starts_record)

/* Detection: "@NAME[" lines, frame and key lines inside records, closing
 * "]: COUNT" lines, and little else. */
static int probe(const unsigned char *buf, size_t len)
{
	struct probe_window win = { buf, len, 0, 0 };
	size_t good = 0, other = 0, opens = 0, closes = 0, frames = 0;
	bool in = false;
	const char *s;
	size_t n;

	while (probe_text_line(&win, &s, &n, &other)) {
		size_t open = opener(s, n);
		double c;
		if (open) {
			opens++;
			good++;
			in = closer(s, n, &c) < 0;
			if (!in && memchr(s + open, ']', n - open))
				closes++;
			continue;
		}
		if (in && n > 0 && (s[0] == ',' || s[0] == ']')) {
			good++;
			if (closer(s, n, &c) >= 0) {
				closes++;
				in = false;
			}
			continue;
		}
		if (in && n > 0) {
			frames++;
			good++;
			continue;
		}
		if (probe_ignorable(s, n) || noise(s, n))
			continue;
		other++;
	}
	if (opens == 0 || frames == 0)
		return 0;
	if (closes > 0)
		return probe_verdict(90, good, other);
	/* cut by the window before the first "]: N": an "@[" line followed by
	 * frames and nothing else is still no other format's */
	return other == 0 ? 85 : probe_verdict(60, good, other);
}

static struct fk_input_plugin plugin = {
	.h = {
		.name = "bpftrace",
		.version = "1.0",
		.description = "bpftrace maps with kstack/ustack keys (@[kstack, ustack, comm])",
		.options = options,
		.options_size = sizeof(struct opts),
	},
	.probe = probe,
	.sync = sync_records,
	.parse = parse,
	/* bpftrace prints the C++ names of a ustack demangled,
	 * argument lists included, and a Rust one as C++'s: as c++filt would */
	.demangle = FK_DEMANGLE_FULL,
};

FLAMEKIT_REGISTER_INPUT(plugin)
