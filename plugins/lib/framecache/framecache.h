/*
 * framecache: what a filter plugin decided about each distinct frame, in
 * an array indexed by the frame's interned id (host->se_frame_id), so a
 * sample costs one load per frame whatever the tests; and a NUL-terminated
 * copy of a name for regexec.  Used by the grep and narrow filters.
 */
#ifndef FK_FRAMECACHE_H
#define FK_FRAMECACHE_H

#include <stddef.h>

#include <flamekit/plugin.h>

struct fc {
	unsigned char *v;   /* v[id]: 0 unknown, else the filter's bits (owned) */
	size_t cap;
	char *name;         /* fc_cstr's buffer (owned) */
	size_t namecap;
};

/* *slot: the byte of frame id, grown (zeroed) as needed.  Valid until the
 * next fc_slot.  0 or FK_ERR_NOMEM (not logged). */
int fc_slot(struct fc *c, const struct fk_host *h, fk_frame_t id, unsigned char **slot);
/* s[0..len) as a C string, valid until the next call; NULL when out of
 * memory. */
const char *fc_cstr(struct fc *c, const struct fk_host *h, const char *s, size_t len);
/* Frame i of sample e: *slot is its byte; when that is 0 (not decided
 * yet), *name is its name as a C string (fc_cstr's) of *len bytes, for the
 * caller to test and store its bits in *slot.  0 or FK_ERR_NOMEM. */
int fc_frame(struct fc *c, const struct fk_host *h, struct fk_sample_edit *e, size_t i,
             unsigned char **slot, const char **name, size_t *len);
void fc_free(struct fc *c, const struct fk_host *h);

#endif
