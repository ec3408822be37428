/* Tracepoint payloads through libtraceevent: see trace.h. */
#include <ctype.h>
#include <errno.h>
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

/* Whether the format text fmt (up to stop) declares a field name[0..n). */
static int declared(const char *fmt, const char *stop, const char *name, size_t n)
{
	for (const char *p = fmt; (p = strstr(p, "field:")) && p < stop; p += 6) {
		const char *semi = strchr(p, ';'), *e, *b;
		if (!semi || semi > stop)
			break;
		if (!(e = memchr(p, '[', (size_t)(semi - p)))) /* "char comm[16];" */
			e = semi;
		while (e > p && isspace((unsigned char)e[-1]))
			e--;
		for (b = e; b > p && (isalnum((unsigned char)b[-1]) || b[-1] == '_'); b--)
			;
		if ((size_t)(e - b) == n && memcmp(b, name, n) == 0)
			return 1;
	}
	return 0;
}

/* Whether every REC->NAME of the format's print fmt is one of its fields:
 * libtraceevent 1.7 dereferences a null pointer on one that is not (a
 * forged format; the kernel writes none). */
static int refs_declared(const char *fmt)
{
	const char *pf = strstr(fmt, "print fmt:"), *p, *q;

	for (p = pf; p && (p = strstr(p, "REC->")); p = q) {
		p += 5;
		for (q = p; isalnum((unsigned char)*q) || *q == '_'; q++)
			;
		if (!declared(fmt, pf, p, (size_t)(q - p)))
			return 0;
	}
	return 1;
}

/* Whether the arguments of the format's print fmt (after its quoted
 * string) divide: a '/' or '%' outside their strings and characters. */
static int divides(const char *fmt)
{
	const char *p = strstr(fmt, "print fmt:"), *q;
	char quote;

	if (!p || !(p = strchr(p, '"')))
		return 0;
	for (p++; *p && *p != '"'; p++) /* the format string */
		if (*p == '\\' && p[1])
			p++;
	for (q = *p ? p + 1 : p; *q && *q != '\n'; q++) {
		if (*q == '/' || *q == '%')
			return 1;
		if (*q != '"' && *q != '\'')
			continue;
		for (quote = *q++; *q && *q != quote && *q != '\n'; q++)
			if (*q == '\\' && q[1])
				q++;
		if (!*q || *q == '\n')
			break;
	}
	return 0;
}

/* Whether tep_parse_event lives through fmt.  libtraceevent (1.7 to 1.8.4,
 * consolidate_op_arg) folds an operator between two constants while it
 * parses, and divides by a zero one: SIGFPE, the whole process gone, on a
 * forged format (the kernel writes none; perf itself dies on such a file).
 * So a format whose arguments divide is parsed first in a child process,
 * which libtraceevent itself judges; its death, a signal of the default
 * action with no core and nothing printed, leaves the format out.  The
 * kernel's formats rarely divide (19 of 2,323 on a 6.1 kernel, none of
 * the events flamekit pairs or weighs). */
static int survives(struct tep_handle *tep, char *fmt, unsigned long len, const char *sys)
{
	static const int deadly[] = { SIGFPE, SIGSEGV, SIGBUS, SIGILL, SIGABRT };
	struct rlimit none = { 0, 0 };
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return 0;
	if (pid == 0) {
		/* the default deaths, not a sanitizer's or libFuzzer's report */
		for (size_t i = 0; i < sizeof deadly / sizeof deadly[0]; i++)
			signal(deadly[i], SIG_DFL);
		setrlimit(RLIMIT_CORE, &none);
		close(STDOUT_FILENO);
		close(STDERR_FILENO);
		(void)tep_parse_event(tep, fmt, len, sys);
		_exit(0);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return 0;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* count formats of system sys, each a u64 size and the text. */
static int formats(struct rd *r, struct tep_handle *tep, const char *sys)
{
	uint64_t n, len;

	if (num(r, 4, &n, "its event formats") < 0)
		return -1;
	for (uint64_t i = 0; i < n; i++) {
		char *fmt = block(r, 8, &len, "an event format");
		if (!fmt)
			return -1;
		/* else left out: the event has no format */
		if (refs_declared(fmt) && (!divides(fmt) || survives(tep, fmt, (unsigned long)len, sys)))
			(void)tep_parse_event(tep, fmt, (unsigned long)len, sys); /* perf goes on past a bad one */
		free(fmt);
	}
	return 0;
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
	uint64_t n, len;
	const unsigned char *b;
	char *text;

	if (headers(r, tep) < 0 || formats(r, tep, "ftrace") < 0 ||
	    num(r, 4, &n, "its event systems") < 0)
		return -1;
	for (uint64_t i = 0; i < n; i++) {
		const char *sys = str(r, "an event system's name");
		if (!sys || formats(r, tep, sys) < 0)
			return -1;
	}
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
