/*
 * The svgdoc library's output buffer: 64 KiB filled by the svg_put family
 * and handed to the host's writer when full.  The first write error is kept
 * in rc and every later write is dropped, so a writer checks rc once at the
 * end (after svg_out_flush).
 */
#ifndef FK_SVGDOC_XMLOUT_H
#define FK_SVGDOC_XMLOUT_H

#include <stddef.h>
#include <stdint.h>

#include <flamekit/plugin.h>

struct svg_out {
	const struct fk_host *h;
	struct fk_writer *w;
	char buf[1 << 16];
	size_t len;
	int rc;            /* first error from h->write, 0 until then */
};

void svg_out_flush(struct svg_out *o);
void svg_put(struct svg_out *o, const char *s, size_t n);
void svg_puts(struct svg_out *o, const char *s);
/* At most 511 bytes of output: for numbers and short fixed text. */
void svg_printf(struct svg_out *o, const char *fmt, ...) FK_PRINTF(2, 3);
/* A number as Perl prints it ("%.15g"), never "-0". */
void svg_put_num(struct svg_out *o, double v);
/* XML text or attribute value, every quote escaped. */
void svg_put_xml(struct svg_out *o, const char *s, size_t n);
void svg_put_xmls(struct svg_out *o, const char *s);
/* A double-quoted JavaScript string literal, safe inside CDATA. */
void svg_put_js(struct svg_out *o, const char *s);

#endif
