/*
 * The xctrace plugin's side of libxml2: the bytes of the input become the
 * nodes of an xmlTextReader (XML_PARSE_NONET, no DTD loaded, no entity
 * substituted), a DOCTYPE is refused in the bytes before libxml2 sees them,
 * libxml2's messages become one "FILE:LINE: not well-formed XML: ..." and
 * never reach stderr, and lines past 65535 are kept.  The elements'
 * meaning is xctrace.c's.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <libxml/parser.h>

#include "xctrace.h"
#include "../common/stack.h"

const char *const xc_names[N_NAMES] = {
	"sample-time", "thread", "process", "tid", "pid", "thread-state", "weight", "cycle-weight", "backtrace",
	"tagged-backtrace", "frame", "binary", "trace-query-result", "node", "schema", "row",
	"sentinel", "id", "ref", "fmt", "name", "addr",
};

#define DOCTYPE_MSG "a DOCTYPE declaration: xctrace writes none, and flamekit reads no DTD " \
	"(its entities could read files or expand without end)"

/* The bytes before the root element, as they come, before libxml2 sees
 * them: a DOCTYPE there is refused, its entities never declared.  Only
 * what may come before the root is followed: blanks, <?...?>, <!--...-->. */
enum { P_TEXT, P_LT, P_BANG, P_BANGDASH, P_COMMENT, P_COMMENT1, P_COMMENT2, P_PI, P_PIQ, P_DONE };

static int prolog(struct cx *c, const char *s, size_t n)
{
	for (size_t i = 0; i < n && c->pstate != P_DONE; i++) {
		char ch = s[i];
		if (ch == '\n')
			c->pline++;
		switch (c->pstate) {
		case P_TEXT: if (ch == '<') c->pstate = P_LT; break;
		case P_LT: c->pstate = ch == '?' ? P_PI : ch == '!' ? P_BANG : P_DONE; break;
		case P_BANG:
			if (ch != '-')
				return c->h->input_error(c->in, c->pline, DOCTYPE_MSG);
			c->pstate = P_BANGDASH;
			break;
		case P_BANGDASH: c->pstate = P_COMMENT; break; /* "<!-x": libxml2's error */
		case P_COMMENT: if (ch == '-') c->pstate = P_COMMENT1; break;
		case P_COMMENT1: c->pstate = ch == '-' ? P_COMMENT2 : P_COMMENT; break;
		case P_COMMENT2: c->pstate = ch == '>' ? P_TEXT : ch == '-' ? P_COMMENT2 : P_COMMENT; break;
		case P_PI: if (ch == '?') c->pstate = P_PIQ; break;
		case P_PIQ: c->pstate = ch == '>' ? P_TEXT : ch == '?' ? P_PIQ : P_PI; break;
		}
	}
	return 0;
}

static int io_read(void *ctx, char *buf, int len)
{
	struct cx *c = ctx;
	ssize_t n;

	if (c->io_rc)
		return -1;
	n = c->h->read(c->in, buf, (size_t)len);
	if (n < 0) {
		c->io_rc = (int)n;
		return -1;
	}
	c->bytes += (uint64_t)n;
	if (c->pstate != P_DONE && (c->io_rc = prolog(c, buf, (size_t)n)) < 0)
		return -1;
	if (c->bytes > c->lim.bytes) {
		c->io_rc = fk_limit_exceeded(c->h, c->in, &c->lim);
		return -1;
	}
	return (int)n;
}

static void on_error(void *ctx, xmlErrorPtr err)
{
	struct cx *c = ctx;
	size_t n;

	if (!err || err->level < XML_ERR_ERROR || c->err[0])
		return;
	snprintf(c->err, sizeof c->err, "%s", err->message ? err->message : "unknown error");
	n = strlen(c->err);
	while (n > 0 && (c->err[n - 1] == '\n' || c->err[n - 1] == ' '))
		c->err[--n] = '\0';
	for (size_t i = 0; i < n; i++) /* one line: "...encoding !\nBytes: 0xFF" */
		if (c->err[i] == '\n')
			c->err[i] = ' ';
	c->err_line = err->line;
}

/* The line of the node the reader is on.  libxml2 keeps an element's line
 * in 16 bits; past 65535 the text before it says (XML_PARSE_BIG_LINES). */
long xc_line(struct cx *c)
{
	xmlNodePtr n = xmlTextReaderCurrentNode(c->r);
	long l = n ? xmlGetLineNo(n) : -1;

	if (l < 0 || l >= 65535)
		l = c->last_line > 65535 ? c->last_line : 65535;
	return l;
}

int xc_fail(struct cx *c, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return c->h->input_error(c->in, (uint64_t)xc_line(c), "%s", msg);
}

/* The next node: 1, 0 at the end, or a negative status (reported). */
int xc_read(struct cx *c)
{
	int rc = xmlTextReaderRead(c->r), t;

	if (rc == 1) {
		t = xmlTextReaderNodeType(c->r);
		if (t == XML_READER_TYPE_WHITESPACE || t == XML_READER_TYPE_SIGNIFICANT_WHITESPACE ||
		    t == XML_READER_TYPE_TEXT) {
			xmlNodePtr n = xmlTextReaderCurrentNode(c->r);
			if (n && n->line == 65535)
				c->last_line = xmlGetLineNo(n);
		} else if (t == XML_READER_TYPE_DOCUMENT_TYPE) { /* prolog() refuses it first */
			return c->h->input_error(c->in, (uint64_t)xmlTextReaderGetParserLineNumber(c->r), DOCTYPE_MSG);
		}
		return 1;
	}
	if (c->io_rc)
		return c->io_rc;
	if (rc == 0 && !c->err[0])
		return 0;
	return c->h->input_error(c->in, c->err_line > 0 ? (uint64_t)c->err_line : (uint64_t)xc_line(c),
	                         "not well-formed XML: %s", c->err[0] ? c->err : "the reader failed");
}

static int type(struct cx *c)
{
	return xmlTextReaderNodeType(c->r);
}

/* Skip the element the reader is on, with everything in it. */
int xc_skip(struct cx *c)
{
	int d = xmlTextReaderDepth(c->r), rc;

	if (xmlTextReaderIsEmptyElement(c->r))
		return 0;
	while ((rc = xc_read(c)) > 0)
		if (type(c) == XML_READER_TYPE_END_ELEMENT && xmlTextReaderDepth(c->r) == d)
			return 0;
	return rc < 0 ? rc : xc_fail(c, "the document ends inside an element");
}

static int kind_of(const struct cx *c, const xmlChar *nm)
{
	for (int k = 0; k < N_KINDS; k++)
		if (nm == c->nm[k])
			return k;
	return -1;
}

/* The next child of the element the reader was on when it was at depth d
 * (and not empty) that is of one of the kinds in mask, into *kind: 1, the
 * reader on it; 0 at the element's end tag; or a negative status.  Other
 * elements are skipped; with `text`, the text met goes into c->buf. */
int xc_next_child(struct cx *c, int d, unsigned mask, bool text, int *kind)
{
	int rc, t;

	while ((rc = xc_read(c)) > 0) {
		t = type(c);
		if (t == XML_READER_TYPE_END_ELEMENT && xmlTextReaderDepth(c->r) == d)
			return 0;
		if (t == XML_READER_TYPE_ELEMENT) {
			int k = kind_of(c, xmlTextReaderConstName(c->r));
			if (k >= 0 && (mask >> k & 1)) {
				*kind = k;
				return 1;
			}
			if ((rc = xc_skip(c)) < 0)
				return rc;
		} else if (text && (t == XML_READER_TYPE_TEXT || t == XML_READER_TYPE_CDATA)) {
			const char *v = (const char *)xmlTextReaderConstValue(c->r);
			size_t n = v ? strlen(v) : 0;
			if (c->blen + n > 4096)
				n = 0; /* too long for a number: "not a number" later */
			if (fk_vector_grow((void **)&c->buf, &c->bcap, c->blen + n + 1, 1,
			    c->h->realloc) < 0)
				return FK_ERR_NOMEM;
			memcpy(c->buf + c->blen, v, n);
			c->blen += n;
		}
	}
	return rc < 0 ? rc : xc_fail(c, "the document ends inside an element");
}

int xc_open(struct cx *c)
{
	c->pline = 1;
	c->old_fn = xmlStructuredError;
	c->old_ctx = xmlStructuredErrorContext;
	xmlInitParser();
	/* anything libxml2 says outside the reader's own handler comes here too,
	 * never to stderr */
	xmlSetStructuredErrorFunc(c, on_error);
	c->r = xmlReaderForIO(io_read, NULL, c, NULL, NULL,
	                      XML_PARSE_NONET | XML_PARSE_NOCDATA | XML_PARSE_COMPACT | XML_PARSE_BIG_LINES |
	                      XML_PARSE_NOWARNING);
	if (!c->r)
		return c->io_rc ? c->io_rc : c->h->input_error(c->in, 0, "out of memory");
	xmlTextReaderSetStructuredErrorHandler(c->r, on_error, c);
	for (int k = 0; k < N_NAMES; k++)
		if (!(c->nm[k] = xmlTextReaderConstString(c->r, (const xmlChar *)xc_names[k])))
			return c->h->input_error(c->in, 0, "out of memory");
	return 0;
}

void xc_close(struct cx *c)
{
	if (c->r)
		xmlFreeTextReader(c->r);
	c->r = NULL;
	xmlSetStructuredErrorFunc(c->old_ctx, c->old_fn);
}
