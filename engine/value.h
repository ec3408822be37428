/*
 * Structured option values (value.c): the engine's side of struct
 * fk_value, the FK_OPT_VALUE option type.  A tree is owned by whoever
 * holds its root (an options struct, or the job while it builds one) and
 * freed with fk_value_free; items belong to their parent.
 */
#ifndef FK_VALUE_H
#define FK_VALUE_H

#include <stdbool.h>
#include <stddef.h>

#include "flamekit/plugin.h"

/* A scalar: text[0..len) copied.  `plain` (unquoted in YAML) lets it be
 * NULL, BOOL or NUMBER; otherwise it is a STRING.  NULL on out of memory. */
struct fk_value *fk_value_scalar(const char *text, size_t len, bool plain);
/* An empty FK_VALUE_MAP or FK_VALUE_LIST.  NULL on out of memory. */
struct fk_value *fk_value_new(int type);
/* Append item (key ignored for a list).  The parent owns item only on
 * success; FK_ERR_NOMEM leaves it to the caller. */
int fk_value_add(struct fk_value *parent, const char *key, size_t keylen, struct fk_value *item);
void fk_value_free(struct fk_value *v);

/* host->value_type, value_text, value_count, value_item. */
int fk_value_type(const struct fk_value *v);
const char *fk_value_text(const struct fk_value *v, size_t *len);
size_t fk_value_count(const struct fk_value *v);
const struct fk_value *fk_value_item(const struct fk_value *v, size_t i, const char **key,
                                     size_t *keylen);

#endif
