/* Tracepoint payloads through libtraceevent: see trace.h. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <event-parse.h>
#include <trace-seq.h>

#include "trace.h"
#include "vector/fkvector.h"

struct pd_trace {
	struct tep_handle *tep;
	pd_trace_resolve_fn *resolve;
	void *ctx;
	struct trace_seq seq;
};

/* The tracing data being read: p in [start, end), in the file's byte order. */
struct rd {
	const unsigned char *start, *p, *end;
	uint64_t off;
	int big;
	struct pd_err *e;
};

static int rfail(struct rd *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int rfail(struct rd *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	pd_vfail(r->e, r->off + (uint64_t)(r->p - r->start), fmt, ap);
	va_end(ap);
	return -1;
}

static int take(struct rd *r, uint64_t n, const unsigned char **out, const char *what)
{
	*out = r->p;
	if ((uint64_t)(r->end - r->p) < n)
		return rfail(r, "its tracing data is cut short in %s", what);
	*out = r->p;
	r->p += n;
	return 0;
}

static int num(struct rd *r, unsigned bytes, uint64_t *v, const char *what)
{
	const unsigned char *b;

	if (take(r, bytes, &b, what) < 0)
		return -1;
	*v = 0;
	for (unsigned i = 0; i < bytes; i++)
		*v |= (uint64_t)b[r->big ? bytes - 1 - i : i] << (8 * i);
	return 0;
}

/* A NUL-terminated string (perf's read_string). */
static const char *str(struct rd *r, const char *what)
{
	const unsigned char *z = memchr(r->p, '\0', (size_t)(r->end - r->p));
	const char *s = (const char *)r->p;

	if (!z)
		return rfail(r, "its tracing data is cut short in %s", what), NULL;
	r->p = z + 1;
	return s;
}

/* A u64-sized block of the data, NUL-terminated in a copy of its own
 * (libtraceevent's parsers take char *, and some want a string). */
static char *block(struct rd *r, unsigned lenbytes, uint64_t *len, const char *what)
{
	const unsigned char *b;
	char *c;

	if (num(r, lenbytes, len, what) < 0 || take(r, *len, &b, what) < 0)
		return NULL;
	if (!(c = malloc((size_t)*len + 1)))
		return rfail(r, "out of memory"), NULL;
	memcpy(c, b, (size_t)*len);
	c[*len] = '\0';
	return c;
}

/* header_page and header_event (perf's read_header_files). */
static int headers(struct rd *r, struct tep_handle *tep)
{
	const unsigned char *tag;
	uint64_t len;
	char *page;

	if (take(r, 12, &tag, "its header page") < 0)
		return -1;
	if (memcmp(tag, "header_page", 12) != 0)
		return r->p = tag, rfail(r, "its tracing data has no header_page");
	if (!(page = block(r, 8, &len, "its header page")))
		return -1;
	/* the page's commit field is a kernel long: its size is the one to use */
	if (tep_parse_header_page(tep, page, (unsigned long)len, tep_get_long_size(tep)) == 0)
		tep_set_long_size(tep, tep_get_header_page_size(tep));
	free(page);
	if (take(r, 13, &tag, "its header event") < 0)
		return -1;
	if (memcmp(tag, "header_event", 13) != 0)
		return r->p = tag, rfail(r, "its tracing data has no header_event");
	if (num(r, 8, &len, "its header event") < 0 || take(r, len, &tag, "its header event") < 0)
		return -1;
	return 0;
}

/* The event formats of the tracing data, in the file's order: each text
 * NUL-terminated in a copy of its own, its system's name in the data. */
struct fmt {
	char *text;
	unsigned long len;
	const char *sys;
	int bad; /* libtraceevent dies parsing it (doomed) */
};
FK_VECTOR(fmts, struct fmt);

static void fmts_free(struct fmts *f)
{
	for (size_t i = 0; i < f->len; i++)
		free(f->ptr[i].text);
	fmts_reset(f, free);
}

/* count formats of system sys, each a u64 size and the text, into f. */
static int formats(struct rd *r, struct fmts *f, const char *sys)
{
	uint64_t n, len;

	if (num(r, 4, &n, "its event formats") < 0)
		return -1;
	for (uint64_t i = 0; i < n; i++) {
		char *text = block(r, 8, &len, "an event format");
		if (!text)
			return -1;
		if (fmts_append(f, (struct fmt){ text, (unsigned long)len, sys, 0 }, realloc) < 0) {
			free(text);
			return rfail(r, "out of memory");
		}
	}
	return 0;
}

/* Which formats libtraceevent dies parsing.  Its parser trusts the text
 * the kernel writes, and a forged format kills the whole process: 1.7
 * dereferences a null pointer on a REC->field the format does not declare
 * or on a mangled __print_flags, and (to 1.8.4 at least, consolidate_op_arg)
 * divides by a zero constant (SIGFPE); perf script dies on such files too.
 * So a child process parses the formats first, in the order the reader
 * will, saying on a pipe which one it starts; one it dies on (a signal of
 * the default action, no core, nothing printed) is marked bad, and a new
 * child parses the others again, reporting from the next one.  The reader
 * then parses the survivors itself, in the same order, so its handle goes
 * through the very states the children lived through.  One child for a
 * file the kernel wrote; a bad format is left out (the event has no
 * format, and the reader says so).  0, or -1 where no child could be made
 * or one made no progress for 10 s (a fork taken while another thread held
 * a lock the child needs: every format is then left out, as unparsable). */
static int doomed(struct tep_handle *tep, struct fmts *f)
{
	static const int deadly[] = { SIGFPE, SIGSEGV, SIGBUS, SIGILL, SIGABRT };
	const uint32_t done = UINT32_MAX;
	size_t from = 0;

	while (from < f->len) {
		struct rlimit none = { 0, 0 };
		uint32_t at, last = done;
		int p[2], status, ended = 0, hung = 0;
		pid_t pid;

		if (pipe(p) < 0)
			return -1;
		if ((pid = fork()) < 0) {
			close(p[0]);
			close(p[1]);
			return -1;
		}
		if (pid == 0) {
			/* the default deaths, not a sanitizer's or libFuzzer's report */
			for (size_t i = 0; i < sizeof deadly / sizeof deadly[0]; i++)
				signal(deadly[i], SIG_DFL);
			setrlimit(RLIMIT_CORE, &none);
			close(p[0]);
			close(STDOUT_FILENO);
			close(STDERR_FILENO);
			for (size_t i = 0; i < f->len; i++) {
				if (f->ptr[i].bad)
					continue;
				at = (uint32_t)i;
				if (i >= from && write(p[1], &at, sizeof at) != sizeof at)
					_exit(1);
				(void)tep_parse_event(tep, f->ptr[i].text, f->ptr[i].len, f->ptr[i].sys);
			}
			_exit(write(p[1], &done, sizeof done) == sizeof done ? 0 : 1);
		}
		close(p[1]);
		for (;;) {
			struct pollfd pf = { p[0], POLLIN, 0 };
			ssize_t got;
			int ready = poll(&pf, 1, 10000);
			if (ready < 0 && errno == EINTR)
				continue;
			if (ready == 0) { /* a child stuck, not parsing: none can judge */
				kill(pid, SIGKILL);
				hung = 1;
				break;
			}
			got = read(p[0], &at, sizeof at);
			if (got < 0 && errno == EINTR)
				continue;
			if (got != (ssize_t)sizeof at)
				break;
			if (at == done)
				ended = 1;
			else
				last = at;
		}
		close(p[0]);
		while (waitpid(pid, &status, 0) < 0)
			if (errno != EINTR)
				return -1;
		if (hung)
			return -1;
		if (ended && WIFEXITED(status) && WEXITSTATUS(status) == 0)
			return 0;
		if (last == done || last >= f->len) /* it died before any format */
			return -1;
		f->ptr[last].bad = 1;
		from = (size_t)last + 1;
	}
	return 0;
}

static void parse_formats(struct tep_handle *tep, struct fmts *f)
{
	if (doomed(tep, f) < 0)
		return;
	for (size_t i = 0; i < f->len; i++)
		if (!f->ptr[i].bad) /* perf goes on past a bad one */
			(void)tep_parse_event(tep, f->ptr[i].text, f->ptr[i].len, f->ptr[i].sys);
}

/* The ftrace printk formats: "ADDR : FORMAT" lines (parse_ftrace_printk). */
static void printk_formats(struct tep_handle *tep, char *text)
{
	char *next = NULL, *line = strtok_r(text, "\n", &next);

	while (line) {
		char *fmt = NULL, *addr = strtok_r(line, ":", &fmt);
		if (!addr)
			break;
		size_t l = fmt ? strlen(fmt) : 0;
		/* ' "FORMAT"', two characters at least: libtraceevent looks for
		 * the quotes and a "\n" before the end without checking its length */
		if (l >= 5 && fmt[1] == '"' && fmt[l - 1] == '"')
			tep_register_print_string(tep, fmt + 1, strtoull(addr, NULL, 16));
		line = strtok_r(NULL, "\n", &next);
	}
}

/* "PID COMM" lines (parse_saved_cmdline). */
static void saved_cmdlines(struct tep_handle *tep, char *text)
{
	char *next = NULL, *line = strtok_r(text, "\n", &next), comm[17];
	int pid;

	for (; line; line = strtok_r(NULL, "\n", &next))
		if (sscanf(line, "%d %16s", &pid, comm) == 2)
			tep_register_comm(tep, comm, pid);
}

/* The sections after the magic and version (trace_report's order). */
static int sections(struct rd *r, struct tep_handle *tep, double version)
{
	struct fmts f = { 0 };
	uint64_t n, len;
	const unsigned char *b;
	char *text;

	if (headers(r, tep) < 0 || formats(r, &f, "ftrace") < 0 ||
	    num(r, 4, &n, "its event systems") < 0)
		return fmts_free(&f), -1;
	for (uint64_t i = 0; i < n; i++) {
		const char *sys = str(r, "an event system's name");
		if (!sys || formats(r, &f, sys) < 0)
			return fmts_free(&f), -1;
	}
	parse_formats(tep, &f);
	fmts_free(&f);
	if (num(r, 4, &len, "its kallsyms") < 0 || take(r, len, &b, "its kallsyms") < 0)
		return -1; /* perf skips them: kernel addresses are its own to resolve */
	if (!(text = block(r, 4, &len, "its printk formats")))
		return -1;
	printk_formats(tep, text);
	free(text);
	if (version < 0.6)
		return 0;
	if (!(text = block(r, 8, &len, "its saved command lines")))
		return -1;
	saved_cmdlines(tep, text);
	free(text);
	return 0;
}

static char *resolver(void *priv, unsigned long long *addrp, char **modp)
{
	struct pd_trace *t = priv;
	uint64_t a = *addrp;
	const char *name = t->resolve ? t->resolve(t->ctx, &a) : NULL;

	*modp = NULL;
	if (name)
		*addrp = a;
	return (char *)name;
}

struct pd_trace *pd_trace_new(const unsigned char *buf, uint64_t len, uint64_t off,
                              pd_trace_resolve_fn *resolve, void *ctx, struct pd_err *e)
{
	static const unsigned char magic[10] = { 23, 8, 68, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	struct rd r = { buf, buf, buf + len, off, 0, e };
	struct pd_trace *t = calloc(1, sizeof *t);
	const unsigned char *b;
	const char *version;
	uint64_t page;

	e->msg[0] = '\0';
	if (!t || !(t->tep = tep_alloc())) {
		free(t);
		return rfail(&r, "out of memory"), NULL;
	}
	t->resolve = resolve;
	t->ctx = ctx;
	trace_seq_init(&t->seq);
	if (take(&r, 10, &b, "its magic") < 0)
		goto bad;
	if (memcmp(b, magic, 10) != 0) {
		r.p = b;
		rfail(&r, "its tracing data does not start with perf's magic");
		goto bad;
	}
	if (!(version = str(&r, "its version")) || take(&r, 2, &b, "its byte order") < 0)
		goto bad;
	r.big = b[0] != 0;
	tep_set_flag(t->tep, TEP_NSEC_OUTPUT);
	tep_set_file_bigendian(t->tep, r.big ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_long_size(t->tep, b[1]);
	if (num(&r, 4, &page, "its page size") < 0)
		goto bad;
	if (page == 0) {
		rfail(&r, "its tracing data gives a page size of 0");
		goto bad;
	}
	tep_set_page_size(t->tep, (int)page);
	if (sections(&r, t->tep, atof(version)) < 0)
		goto bad;
	if (tep_set_function_resolver(t->tep, resolver, t) < 0) {
		rfail(&r, "out of memory");
		goto bad;
	}
	return t;
bad:
	pd_trace_free(t);
	return NULL;
}

void pd_trace_free(struct pd_trace *t)
{
	if (!t)
		return;
	trace_seq_destroy(&t->seq);
	if (t->tep)
		tep_free(t->tep);
	free(t);
}

int pd_trace_has(const struct pd_trace *t, uint64_t config)
{
	return config <= 0x7fffffff && tep_find_event(t->tep, (int)config) != NULL;
}

int pd_trace_print(struct pd_trace *t, struct obuf *o, uint32_t cpu, const unsigned char *raw,
                   uint32_t size)
{
	struct tep_record rec;

	memset(&rec, 0, sizeof rec);
	rec.cpu = (int)cpu;
	rec.size = (int)size;
	rec.data = (void *)raw;
	trace_seq_reset(&t->seq);
	tep_print_event(t->tep, &t->seq, &rec, "%s", TEP_PRINT_INFO);
	if (t->seq.state != TRACE_SEQ__GOOD)
		return -1;
	ob_mem(o, t->seq.buffer, t->seq.len);
	return 0;
}
