/*
 * Structured option values (FK_OPT_VALUE): a small generic tree of
 * scalars, mappings and lists that the engine builds from a job file's
 * YAML (or from one text on the command line) and plugins read through
 * host->value_*.  The engine gives scalars a type the way YAML's core
 * schema does (null, true/false, numbers, text); what the values mean is
 * the plugin's business.
 */
#include <string.h>

#include "fk.h"
#include "value.h"
#include "vector/fkvector.h"

struct fk_value {
	int type;             /* enum fk_value_type */
	char *text;           /* scalars: NUL-terminated */
	size_t len;
	char **keys;          /* MAP: one per item */
	size_t *keylens;
	struct fk_value **items;
	size_t n, cap;
};

void fk_value_free(struct fk_value *v)
{
	if (!v)
		return;
	for (size_t i = 0; i < v->n; i++) {
		fk_value_free(v->items[i]);
		if (v->keys)
			fk_free(v->keys[i]);
	}
	fk_free(v->items);
	fk_free(v->keys);
	fk_free(v->keylens);
	fk_free(v->text);
	fk_free(v);
}

static bool is_number(const char *s)
{
	const char *p = s;

	if (*p == '-')
		p++;
	if (!(*p >= '0' && *p <= '9'))
		return false;
	while (*p >= '0' && *p <= '9')
		p++;
	if (*p == '.') {
		p++;
		while (*p >= '0' && *p <= '9')
			p++;
	}
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '-' || *p == '+')
			p++;
		if (!(*p >= '0' && *p <= '9'))
			return false;
		while (*p >= '0' && *p <= '9')
			p++;
	}
	return *p == '\0';
}

struct fk_value *fk_value_scalar(const char *text, size_t len, bool plain)
{
	struct fk_value *v = fk_calloc(1, sizeof *v);

	if (!v)
		return NULL;
	if (!(v->text = fk_strndup(text, len))) {
		fk_free(v);
		return NULL;
	}
	v->len = len;
	v->type = FK_VALUE_STRING;
	if (plain) {
		if (len == 0 || strcmp(v->text, "~") == 0 || strcmp(v->text, "null") == 0)
			v->type = FK_VALUE_NULL;
		else if (strcmp(v->text, "true") == 0 || strcmp(v->text, "false") == 0)
			v->type = FK_VALUE_BOOL;
		else if (is_number(v->text))
			v->type = FK_VALUE_NUMBER;
	}
	return v;
}

struct fk_value *fk_value_new(int type)
{
	struct fk_value *v = fk_calloc(1, sizeof *v);

	if (v)
		v->type = type;
	return v;
}

int fk_value_add(struct fk_value *parent, const char *key, size_t keylen, struct fk_value *item)
{
	/* A map's three arrays share cap: each grows the same way from it. */
	size_t ci = parent->cap, ck = parent->cap, cl = parent->cap, need = parent->n + 1;
	fk_vector_realloc_fn *re = fk_realloc;

	if (fk_vector_grow((void **)&parent->items, &ci, need, sizeof *parent->items, re) < 0)
		return FK_ERR_NOMEM;
	if (parent->type == FK_VALUE_MAP &&
	    (fk_vector_grow((void **)&parent->keys, &ck, need, sizeof *parent->keys, re) < 0 ||
	     fk_vector_grow((void **)&parent->keylens, &cl, need, sizeof *parent->keylens, re) < 0))
		return FK_ERR_NOMEM;
	parent->cap = ci;
	if (parent->type == FK_VALUE_MAP) {
		if (!(parent->keys[parent->n] = fk_strndup(key, keylen)))
			return FK_ERR_NOMEM;
		parent->keylens[parent->n] = keylen;
	}
	parent->items[parent->n++] = item;
	return 0;
}

/* ---- the host's accessors ---------------------------------------------- */

int fk_value_type(const struct fk_value *v)
{
	return v ? v->type : FK_VALUE_NULL;
}

const char *fk_value_text(const struct fk_value *v, size_t *len)
{
	if (!v || v->type == FK_VALUE_MAP || v->type == FK_VALUE_LIST) {
		if (len)
			*len = 0;
		return NULL;
	}
	if (len)
		*len = v->len;
	return v->text;
}

size_t fk_value_count(const struct fk_value *v)
{
	return v && (v->type == FK_VALUE_MAP || v->type == FK_VALUE_LIST) ? v->n : 0;
}

const struct fk_value *fk_value_item(const struct fk_value *v, size_t i, const char **key,
                                     size_t *keylen)
{
	if (key)
		*key = NULL;
	if (keylen)
		*keylen = 0;
	if (i >= fk_value_count(v))
		return NULL;
	if (v->type == FK_VALUE_MAP) {
		if (key)
			*key = v->keys[i];
		if (keylen)
			*keylen = v->keylens[i];
	}
	return v->items[i];
}
