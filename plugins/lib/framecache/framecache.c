/* framecache: per-frame answers of a filter, by interned frame id. */
#include <string.h>

#include "framecache.h"

int fc_slot(struct fc *c, const struct fk_host *h, fk_frame_t id, unsigned char **slot)
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

void fc_free(struct fc *c, const struct fk_host *h)
{
	h->free(c->v);
	h->free(c->name);
	memset(c, 0, sizeof *c);
}
