/*
 * The document's output buffer and its escapes: XML text and attribute
 * values, JavaScript string literals, numbers as Perl prints them.  Bytes
 * XML cannot carry (invalid UTF-8, control characters) or that would reorder
 * the text around them (bidi controls) become U+FFFD.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "palette.h"
#include "xmlout.h"

void svg_out_flush(struct svg_out *o)
{
	if (o->rc == 0 && o->len)
		o->rc = o->h->write(o->w, o->buf, o->len);
	o->len = 0;
}

void svg_put(struct svg_out *o, const char *s, size_t n)
{
	if (o->len + n > sizeof o->buf) {
		svg_out_flush(o);
		if (n > sizeof o->buf) {
			if (o->rc == 0)
				o->rc = o->h->write(o->w, s, n);
			return;
		}
	}
	memcpy(o->buf + o->len, s, n);
	o->len += n;
}

void svg_puts(struct svg_out *o, const char *s) { svg_put(o, s, strlen(s)); }

void FK_PRINTF(2, 3) svg_printf(struct svg_out *o, const char *fmt, ...)
{
	char tmp[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof tmp, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	svg_put(o, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

/* A number as Perl prints it ("%.15g"). */
void svg_put_num(struct svg_out *o, double v)
{
	if (v == 0)
		v = 0; /* no "-0" */
	svg_printf(o, "%.15g", v);
}

static int bad_char(int32_t cp)
{
	if (cp < 0)
		return 1;
	if (cp < 0x20 && cp != '\t')
		return 1;
	if (cp == 0x7f || (cp >= 0x80 && cp < 0xa0))
		return 1;
	if (cp == 0xfffe || cp == 0xffff)
		return 1;
	/* bidi embeddings, overrides, isolates and marks */
	if ((cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069) || cp == 0x200e ||
	    cp == 0x200f || cp == 0x061c)
		return 1;
	return 0;
}

/* XML text or attribute value; quote: also escape '"' and '\''. */
void svg_put_xml(struct svg_out *o, const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, run = 0;

	while (i < n) {
		int32_t cp;
		size_t k = pal_utf8(u + i, n - i, &cp);
		const char *rep = NULL;
		if (cp == '&')
			rep = "&amp;";
		else if (cp == '<')
			rep = "&lt;";
		else if (cp == '>')
			rep = "&gt;";
		else if (cp == '"')
			rep = "&quot;";
		else if (cp == '\'')
			rep = "&#39;";
		else if (bad_char(cp))
			rep = "\xef\xbf\xbd";
		if (rep) {
			svg_put(o, s + run, i - run);
			svg_puts(o, rep);
			run = i + k;
		}
		i += k;
	}
	svg_put(o, s + run, n - run);
}

void svg_put_xmls(struct svg_out *o, const char *s) { svg_put_xml(o, s, strlen(s)); }

/* A JavaScript string literal, safe inside CDATA and in any browser. */
void svg_put_js(struct svg_out *o, const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t n = strlen(s), i = 0;

	svg_put(o, "\"", 1);
	while (i < n) {
		int32_t cp;
		size_t k = pal_utf8(u + i, n - i, &cp);
		if (bad_char(cp))
			cp = 0xfffd;
		if ((cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z') || (cp >= '0' && cp <= '9') ||
		    cp == ' ' || cp == ':' || cp == '.' || cp == ',' || cp == '_' || cp == '-')
			svg_printf(o, "%c", (char)cp);
		else if (cp < 0x10000)
			svg_printf(o, "\\u%04x", (unsigned)cp);
		else
			svg_printf(o, "\\u%04x\\u%04x", 0xd800u + (((unsigned)cp - 0x10000) >> 10),
			     0xdc00u + (((unsigned)cp - 0x10000) & 0x3ff));
		i += k;
	}
	svg_put(o, "\"", 1);
}
