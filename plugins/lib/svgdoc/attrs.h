/*
 * Side files of a graph: the --nameattr attributes and the --cp palette
 * map, both held in a small string map.  Every string a map holds is
 * allocated with the map's host and freed by svg_smap_free.
 */
#ifndef FK_SVGDOC_ATTRS_H
#define FK_SVGDOC_ATTRS_H

#include <stddef.h>

#include <flamekit/plugin.h>

#include "xmlout.h"

struct svg_smap_ent {
	char *key, *val;
	size_t klen;
};

/* Zero-initialise with the host set: { h, NULL, 0, 0, 0 }. */
struct svg_smap {
	const struct fk_host *h;
	struct svg_smap_ent *v;
	size_t mask, n;
	int dirty;           /* changed since loaded: the palette map is saved */
};

struct svg_smap_ent *svg_smap_find(const struct svg_smap *m, const char *k, size_t n);
/* Insert or replace k; takes ownership of val (freed even on failure). */
int svg_smap_put(struct svg_smap *m, const char *k, size_t n, char *val);
void svg_smap_free(struct svg_smap *m);
/* s[0..n) copied, NUL-terminated, with h->alloc; NULL when out of memory. */
char *svg_strdup(const struct fk_host *h, const char *s, size_t n);

/* nameattr file: "FUNCTION<TAB>key=value<TAB>...".  Values are stored as
 * "key\0value\0key\0value\0\0"; svg_attr_get looks one key up (NULL: none). */
int svg_nameattr_load(const struct fk_host *h, const char *path, struct svg_smap *m);
const char *svg_attr_get(const char *kv, const char *key);
/* Raw attribute text (a_extra, g_extra): only well-formed name="value"
 * pairs, escaped, never an on* handler. */
void svg_put_extra(struct svg_out *o, const char *s);
/* 0 for a javascript:, data: or vbscript: link. */
int svg_href_ok(const char *s);

/* The --cp palette map ("NAME->rgb(r,g,b)" lines): a missing file is an
 * empty map, and the map an earlier output of the run writes is read
 * instead of the file; saving rewrites it sorted, as a side output of w
 * (written only when the run succeeds), and only when the map is dirty. */
int svg_palmap_load(const struct fk_host *h, const char *path, struct svg_smap *m);
int svg_palmap_save(const struct fk_host *h, struct fk_writer *w, const char *path,
                    struct svg_smap *m);

#endif
