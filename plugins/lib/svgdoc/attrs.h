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

/* nameattr file: "FUNCTION<TAB>key=value<TAB>..." with flamegraph.pl's
 * keys.  A line naming an unknown key, an attribute twice, an event
 * handler, a style or a link whose scheme is not http, https or mailto is
 * refused with PATH:LINE.  The entry of a function is "key\0value\0...\0":
 * "title", and "@NAME" for each attribute to write, in order. */
int svg_nameattr_load(const struct fk_host *h, const char *path, struct svg_smap *m);
/* One key's value in an entry (kv may be NULL), NULL if absent. */
const char *svg_attr_get(const char *kv, const char *key);
/* 1 when the entry's element is a link (<a>), 0 for a group (<g>). */
int svg_attr_link(const char *kv);
/* The entry's attributes, name="escaped value", separated by one space. */
void svg_put_attrs(struct svg_out *o, const char *kv);

/* The --cp palette map ("NAME->rgb(r,g,b)" lines): a missing file is an
 * empty map, and the map an earlier output of the run writes is read
 * instead of the file; saving rewrites it sorted, as a side output of w
 * (written only when the run succeeds), and only when the map is dirty. */
int svg_palmap_load(const struct fk_host *h, const char *path, struct svg_smap *m);
int svg_palmap_save(const struct fk_host *h, struct fk_writer *w, const char *path,
                    struct svg_smap *m);

#endif
