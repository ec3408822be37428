/*
 * Input plugin "bpftrace-example" (the SDK's example; flamekit's own
 * plugin "bpftrace" reads more forms): the stack aggregations bpftrace prints when it
 * exits, such as those of
 *
 *     bpftrace -e 'profile:hz:99 { @[kstack, ustack, comm] = count(); }'
 *
 * which look like this (frames leaf first, each key part after ", "):
 *
 *     @[
 *             schedule+45
 *             do_nanosleep+112
 *     ,
 *             clock_nanosleep+91
 *             main+38
 *     , sleep]: 7
 *
 * and become one folded stack, root first: "sleep;main+38;clock_nanosleep+91;
 * do_nanosleep+112;schedule+45 7", as FlameGraph's stackcollapse-bpftrace.pl
 * writes it, except that the ", " line between two stacks is not kept as a
 * frame (the script keeps it, giving a frame named ", ").
 *
 * This is an example of an out-of-tree plugin: it includes nothing of
 * flamekit but <flamekit/plugin.h> and links nothing; every service comes
 * through the host table.
 */
#include <stdbool.h>
#include <string.h>

#include <flamekit/plugin.h>

struct opts {
	int annotate_kernel;   /* FLAG: the first stack of a record is kstack */
	const char *separator; /* STRING: frame put between key parts, or NULL */
};

static const struct fk_option options[] = {
	FK_OPTION(FK_OPT_FLAG, "annotate-kernel", "false", struct opts, annotate_kernel,
	          "mark the frames of the first of several stacks (kstack) with _[k]"),
	FK_OPTION(FK_OPT_STRING, "separator", NULL, struct opts, separator,
	          "frame to put between kstack and ustack (e.g. '-'); none by default"),
	FK_OPTION_END,
};

/* One record as read, leaf first: frame texts live in `text`, and each
 * frame remembers which key part it came from. */
struct frame {
	size_t off, len;
	unsigned part;
	bool scalar;           /* from the closing line (comm), not a stack */
};

struct record {
	const struct fk_host *h;
	char *text;
	size_t tlen, tcap;
	struct frame *v;
	size_t n, cap;
	unsigned part;         /* index of the key part being read */
	bool split;            /* a lone "," line separated two stacks */
	struct fk_frameref *refs;
	size_t rcap;
};

static int add_frame(struct record *r, const char *s, size_t len)
{
	if (r->tlen + len > r->tcap) {
		size_t cap = r->tcap ? r->tcap : 4096;
		char *t;
		while (cap < r->tlen + len)
			cap *= 2;
		if (!(t = r->h->realloc(r->text, cap)))
			return FK_ERR_NOMEM;
		r->text = t;
		r->tcap = cap;
	}
	if (r->n == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 128;
		struct frame *v = r->h->realloc(r->v, cap * sizeof *v);
		if (!v)
			return FK_ERR_NOMEM;
		r->v = v;
		r->cap = cap;
	}
	memcpy(r->text + r->tlen, s, len);
	r->v[r->n].off = r->tlen;
	r->v[r->n].len = len;
	r->v[r->n].part = r->part;
	r->v[r->n].scalar = false;
	r->n++;
	r->tlen += len;
	return 0;
}

/* Push the record, root first: the reverse of the order it was read in. */
static int push_record(struct record *r, struct fk_sink *sink, const struct opts *o, double count)
{
	size_t sep = o->separator && *o->separator ? strlen(o->separator) : 0;
	size_t max = r->n * 2 + 1, k = 0;
	bool kernel = o->annotate_kernel && r->split;
	struct fk_sample smp;

	if (max > r->rcap) {
		struct fk_frameref *v = r->h->realloc(r->refs, max * sizeof *v);
		if (!v)
			return FK_ERR_NOMEM;
		r->refs = v;
		r->rcap = max;
	}
	for (size_t i = r->n; i-- > 0;) {
		struct fk_frameref *f;
		if (sep && k > 0 && r->v[i].part != r->v[i + 1].part && !r->v[i + 1].scalar) {
			f = &r->refs[k++];
			memset(f, 0, sizeof *f);
			f->name = o->separator;
			f->len = sep;
		}
		f = &r->refs[k++];
		memset(f, 0, sizeof *f);
		f->name = r->text + r->v[i].off;
		f->len = r->v[i].len;
		if (kernel && r->v[i].part == 0)
			f->annot = FK_ANNOT_KERNEL;
	}
	memset(&smp, 0, sizeof smp);
	smp.frames = r->refs;
	smp.nframes = k;
	smp.weight[0] = count;
	return r->h->push(sink, &smp, NULL);
}

/* "@[" or "@name[" opens a record; bpftrace prints an empty first stack as
 * nothing, so "@[, " opens one whose first key part is already over.
 * Returns 0 for no, 1 for "@[", 2 for "@[, ". */
static int is_open(const char *s, size_t n)
{
	size_t i = 1;

	while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	if (n < 2 || s[0] != '@')
		return 0;
	for (; i < n && s[i] != '['; i++)
		if (!(s[i] == '_' || (s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		      (s[i] >= '0' && s[i] <= '9')))
			return 0;
	if (i == n - 1)
		return 1;
	if (i == n - 2 && s[n - 1] == ',')
		return 2;
	return 0;
}

/* A line ending "]: DIGITS" closes a record.  Returns the length of the
 * text before "]:" and the count in *count, or -1. */
static long closing(const char *s, size_t n, double *count)
{
	size_t i = n;
	double c = 0;

	while (i > 0 && s[i - 1] >= '0' && s[i - 1] <= '9')
		i--;
	if (i == n || i < 3 || s[i - 1] != ' ' || s[i - 2] != ':' || s[i - 3] != ']')
		return -1;
	for (size_t j = i; j < n; j++)
		c = c * 10 + (s[j] - '0');
	*count = c;
	return (long)(i - 3);
}

static bool blank(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] != ' ' && s[i] != '\t')
			return false;
	return true;
}

static int parse(const struct fk_host *h, struct fk_input *in, struct fk_sink *sink, const void *opts)
{
	const struct opts *o = opts;
	struct record r = { .h = h };
	uint64_t opened = 0; /* line of the open record's "@[", 0 outside one */
	const char *line;
	size_t len;
	int got = 0, rc = 0;

	while (rc == 0 && (got = h->getline(in, &line, &len)) > 0) {
		double count;
		const char *p;
		long end;

		if (!opened) {
			int kind = is_open(line, len);
			if (kind) {
				opened = h->input_lineno(in);
				r.n = r.tlen = 0;
				r.part = kind == 2;
				r.split = kind == 2;
			} else if (len > 2 && line[0] == '@' && (end = closing(line, len, &count)) >= 0 &&
			           (p = memchr(line, '[', (size_t)end)) && p + 3 < line + end &&
			           p[1] == ',' && p[2] == ' ' && is_open(line, (size_t)(p - line) + 1) == 1) {
				/* "@[, comm]: 3": a record whose stacks were empty */
				r.n = r.tlen = 0;
				r.part = 0;
				r.split = false;
				rc = add_frame(&r, p + 3, (size_t)(line + end - (p + 3)));
				if (rc == 0)
					rc = push_record(&r, sink, o, count);
			} else if (!blank(line, len) && strncmp(line, "Attaching ", 10) != 0) {
				/* other maps (@start[123]: 456), printf output... */
				h->input_skip(in, h->input_lineno(in));
			}
			continue;
		}
		end = closing(line, len, &count);
		if (end >= 0) {
			/* ", comm]: 7": the last key part, a scalar, is the base frame */
			size_t i = 0;
			for (;;) {
				while (i < (size_t)end && (line[i] == ' ' || line[i] == '\t'))
					i++;
				if (i == (size_t)end || line[i] != ',')
					break;
				i++; /* ", , comm]": an empty stack before the comm */
				r.part++;
			}
			if (i < (size_t)end && (rc = add_frame(&r, line + i, (size_t)end - i)) == 0)
				r.v[r.n - 1].scalar = true;
			if (rc == 0)
				rc = push_record(&r, sink, o, count);
			opened = 0;
			continue;
		}
		while (len > 0 && (*line == ' ' || *line == '\t')) {
			line++;
			len--;
		}
		while (len > 0 && (line[len - 1] == ' ' || line[len - 1] == '\t'))
			len--;
		if (len == 1 && line[0] == ',') {
			r.part++; /* ", " between two stacks */
			r.split = true;
			continue;
		}
		if (len > 0)
			rc = add_frame(&r, line, len);
	}
	if (rc == 0 && got < 0)
		rc = got;
	if (rc == 0 && opened)
		rc = h->input_error(in, opened, "this record has no closing ']: COUNT' line "
		                    "(is the file truncated?)");
	if (rc == FK_ERR_NOMEM)
		h->input_error(in, h->input_lineno(in), "out of memory");
	h->free(r.text);
	h->free(r.v);
	h->free(r.refs);
	return rc;
}

/* bpftrace output has a line "@[" (or "@name[") alone and, later, a line
 * ending in "]: N". */
static int probe(const unsigned char *buf, size_t len)
{
	const char *s = (const char *)buf;
	bool open = false;
	size_t i = 0;

	while (i < len) {
		const char *nl = memchr(s + i, '\n', len - i);
		size_t n;
		double c;
		if (!nl)
			break;
		n = (size_t)(nl - (s + i));
		if (n && s[i + n - 1] == '\r')
			n--;
		if (is_open(s + i, n))
			open = true;
		else if (open && closing(s + i, n, &c) >= 0)
			return 80;
		i = (size_t)(nl - s) + 1;
	}
	return 0;
}

static struct fk_input_plugin plugin = {
	.h = {
		.name = "bpftrace-example",
		.version = "1.0",
		.description = "bpftrace @[kstack, ustack, comm] stack maps",
		.options = options,
		.options_size = sizeof(struct opts),
	},
	.probe = probe,
	.parse = parse,
};

FLAMEKIT_REGISTER_INPUT(plugin)
