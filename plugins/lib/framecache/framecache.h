/*
 * framecache: what a filter plugin decided about each distinct frame, in
 * an array indexed by the frame's interned id (host->se_frame_id), so a
 * sample costs one load per frame whatever the tests; and a NUL-terminated
 * copy of a name for regexec.  Used by the grep and narrow filters, which
 * give fc_bits their test of a name (a regexec of patterns fc_regcomp
 * compiled).
 */
#ifndef FK_FRAMECACHE_H
#define FK_FRAMECACHE_H

#include <regex.h>
#include <stddef.h>

#include <flamekit/plugin.h>

struct fc {
	unsigned char *v;   /* v[id]: 0 unknown, else the filter's bits (owned) */
	size_t cap;
	char *name;         /* fc_cstr's buffer (owned) */
	size_t namecap;
};

/* s[0..len) as a C string, valid until the next call; NULL when out of
 * memory. */
const char *fc_cstr(struct fc *c, const struct fk_host *h, const char *s, size_t len);
/* Set in every stored byte: the frame has been tested. */
#define FC_KNOWN 1u
/* The bits of frame i of sample e: cached, else those of the filter's
 * test of its name (a C string of len bytes) | FC_KNOWN, stored.  0 or
 * FK_ERR_NOMEM (not logged). */
int fc_bits(struct fc *c, const struct fk_host *h, struct fk_sample_edit *e, size_t i,
            unsigned (*test)(void *ctx, const char *name, size_t len), void *ctx, unsigned *bits);
void fc_free(struct fc *c, const struct fk_host *h);
/* Compile pat into *re, a POSIX extended regular expression that reports
 * no submatches (REG_EXTENDED | REG_NOSUB | cflags).  0, or FK_ERR_USAGE
 * once the error is logged as `LABEL "PAT": why`, LABEL printed from fmt
 * (any length), or FK_ERR_NOMEM; *re is then not to be regfree'd. */
int fc_regcomp(const struct fk_host *h, regex_t *re, const char *pat, int cflags,
               const char *fmt, ...) __attribute__((format(printf, 5, 6)));

#endif
