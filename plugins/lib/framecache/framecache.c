/* framecache: per-frame answers of a filter, by interned frame id. */
#define _GNU_SOURCE /* vasprintf */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "framecache.h"

/* *slot: the byte of frame id, grown (zeroed) as needed. */
static int fc_slot(struct fc *c, const struct fk_host *h, fk_frame_t id, unsigned char **slot)
{
	if (id >= c->cap) {
		size_t cap = c->cap ? c->cap : 4096;
		unsigned char *v;
		while (cap <= id)
			cap *= 2;
		if (!(v = h->realloc(c->v, cap)))
			return FK_ERR_NOMEM;
		memset(v + c->cap, 0, cap - c->cap);
		c->v = v;
		c->cap = cap;
	}
	*slot = &c->v[id];
	return 0;
}

const char *fc_cstr(struct fc *c, const struct fk_host *h, const char *s, size_t len)
{
	if (len + 1 > c->namecap) {
		char *n = h->realloc(c->name, len + 64);
		if (!n)
			return NULL;
		c->name = n;
		c->namecap = len + 64;
	}
	memcpy(c->name, s, len);
	c->name[len] = '\0';
	return c->name;
}

/* Frame i of sample e: *slot is its byte; when that is 0 (not decided
 * yet), *name is its name as a C string (fc_cstr's) of *len bytes. */
static int fc_frame(struct fc *c, const struct fk_host *h, struct fk_sample_edit *e, size_t i,
                    unsigned char **slot, const char **name, size_t *len)
{
	const char *s;

	if (fc_slot(c, h, h->se_frame_id(e, i), slot) < 0)
		return FK_ERR_NOMEM;
	if (**slot)
		return 0;
	s = h->se_frame_name(e, i, len);
	return (*name = fc_cstr(c, h, s, *len)) ? 0 : FK_ERR_NOMEM;
}

int fc_bits(struct fc *c, const struct fk_host *h, struct fk_sample_edit *e, size_t i,
            unsigned (*test)(void *ctx, const char *name, size_t len), void *ctx, unsigned *bits)
{
	const char *name = NULL;
	unsigned char *slot;
	size_t len;

	if (fc_frame(c, h, e, i, &slot, &name, &len) < 0)
		return FK_ERR_NOMEM;
	if (!*slot)
		*slot = (unsigned char)(test(ctx, name, len) | FC_KNOWN);
	*bits = *slot;
	return 0;
}

void fc_free(struct fc *c, const struct fk_host *h)
{
	h->free(c->v);
	h->free(c->name);
	memset(c, 0, sizeof *c);
}

int fc_regcomp(const struct fk_host *h, regex_t *re, const char *pat, int cflags,
               const char *fmt, ...)
{
	int rc = regcomp(re, pat, REG_EXTENDED | REG_NOSUB | cflags);
	char *label, msg[256];
	va_list ap;

	if (rc == 0)
		return 0;
	regerror(rc, re, msg, sizeof msg);
	va_start(ap, fmt);
	if (vasprintf(&label, fmt, ap) < 0) /* a job file's path: any length */
		label = NULL;
	va_end(ap);
	if (!label) {
		h->log(FK_LOG_ERROR, "out of memory");
		return FK_ERR_NOMEM;
	}
	h->log(FK_LOG_ERROR, "%s \"%s\": %s", label, pat, msg);
	free(label);
	return FK_ERR_USAGE;
}
