/*
 * Plugin options: each plugin declares a table (type, name, default,
 * offset, help); the engine allocates the struct, applies defaults and
 * validates every value set from the command line or a job file against it.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fk.h"

const struct fk_option *fk_option_find(const struct fk_plugin *pl, const char *name)
{
	const struct fk_option *o = pl->d.h.options;

	for (; o && o->type != FK_OPT_END; o++)
		if (strcmp(o->name, name) == 0)
			return o;
	return NULL;
}

static int parse_flag(const char *v, int *out)
{
	static const char *const yes[] = { "1", "true", "yes", "on" };
	static const char *const no[] = { "0", "false", "no", "off" };

	if (!v) {
		*out = 1;
		return 0;
	}
	for (size_t i = 0; i < 4; i++) {
		if (strcasecmp(v, yes[i]) == 0) {
			*out = 1;
			return 0;
		}
		if (strcasecmp(v, no[i]) == 0) {
			*out = 0;
			return 0;
		}
	}
	return -1;
}

static int set_value(const struct fk_option *o, void *opts, const char *value, char *err, size_t errlen)
{
	char *base = opts, *end;

	switch (o->type) {
	case FK_OPT_FLAG: {
		int f;
		if (parse_flag(value, &f) < 0) {
			snprintf(err, errlen, "option '%s' takes true or false, not \"%s\"", o->name, value);
			return FK_ERR_USAGE;
		}
		*(int *)(base + o->offset) = f;
		return 0;
	}
	case FK_OPT_INT: {
		long long v;
		if (!value || !*value)
			goto missing;
		errno = 0;
		v = strtoll(value, &end, 10);
		if (errno || *end) {
			snprintf(err, errlen, "option '%s' takes a whole number, not \"%s\"", o->name, value);
			return FK_ERR_USAGE;
		}
		*(long long *)(base + o->offset) = v;
		return 0;
	}
	case FK_OPT_DOUBLE: {
		double v;
		if (!value || !*value)
			goto missing;
		errno = 0;
		v = strtod(value, &end);
		if (errno || *end || !isfinite(v)) {
			snprintf(err, errlen, "option '%s' takes a number, not \"%s\"", o->name, value);
			return FK_ERR_USAGE;
		}
		*(double *)(base + o->offset) = v;
		return 0;
	}
	case FK_OPT_STRING: {
		char **slot = (char **)(base + o->offset);
		char *d;
		if (!value)
			goto missing;
		d = fk_strdup(value);
		if (!d) {
			snprintf(err, errlen, "out of memory");
			return FK_ERR_NOMEM;
		}
		fk_free(*slot);
		*slot = d;
		return 0;
	}
	}
	snprintf(err, errlen, "option '%s' has an unknown type", o->name);
	return FK_ERR_PLUGIN;
missing:
	snprintf(err, errlen, "option '%s' needs a value", o->name);
	return FK_ERR_USAGE;
}

int fk_options_new(const struct fk_plugin *pl, void **out)
{
	const struct fk_option *o;
	void *opts;
	char err[256];

	*out = NULL;
	opts = fk_calloc(1, pl->d.h.options_size ? pl->d.h.options_size : 1);
	if (!opts)
		return FK_ERR_NOMEM;
	for (o = pl->d.h.options; o && o->type != FK_OPT_END; o++) {
		if (!o->def)
			continue;
		int rc = set_value(o, opts, o->def, err, sizeof err);
		if (rc < 0) {
			if (rc != FK_ERR_NOMEM) /* callers say "out of memory" */
				fk_log(FK_LOG_ERROR, "%s: bad default: %s", pl->path, err);
			fk_options_free(pl, opts);
			return rc;
		}
	}
	*out = opts;
	return 0;
}

void fk_options_free(const struct fk_plugin *pl, void *opts)
{
	const struct fk_option *o;

	if (!opts)
		return;
	for (o = pl->d.h.options; o && o->type != FK_OPT_END; o++)
		if (o->type == FK_OPT_STRING)
			fk_free(*(char **)((char *)opts + o->offset));
	fk_free(opts);
}

int fk_option_names(const struct fk_plugin *pl, struct fk_buf *out)
{
	const struct fk_option *o;
	int first = 1;

	for (o = pl->d.h.options; o && o->type != FK_OPT_END; o++, first = 0)
		if (fk_buf_printf(out, "%s%s", first ? "" : ", ", o->name) < 0)
			return FK_ERR_NOMEM;
	if (first && fk_buf_printf(out, "(none)") < 0)
		return FK_ERR_NOMEM;
	return 0;
}

int fk_option_set(const struct fk_plugin *pl, void *opts, const char *name,
                  const char *value, char *err, size_t errlen)
{
	const struct fk_option *o = fk_option_find(pl, name);

	if (!o) {
		struct fk_buf names = { 0 };
		fk_option_names(pl, &names);
		snprintf(err, errlen, "the %s plugin \"%s\" has no option '%s' (it has: %s)",
		         fk_kind_name((int)pl->d.h.kind), pl->d.h.name, name,
		         names.data ? names.data : "(none)");
		fk_buf_free(&names);
		return FK_ERR_USAGE;
	}
	return set_value(o, opts, value, err, errlen);
}

static const char *type_name(int t)
{
	switch (t) {
	case FK_OPT_FLAG: return "flag";
	case FK_OPT_INT: return "integer";
	case FK_OPT_DOUBLE: return "number";
	case FK_OPT_STRING: return "string";
	}
	return "?";
}

void fk_options_help(const struct fk_plugin *pl, FILE *f)
{
	fprintf(f, "%s plugin \"%s\" %s (ABI %u.%u)\n  %s\n  loaded from %s\n",
	        fk_kind_name((int)pl->d.h.kind), pl->d.h.name,
	        pl->d.h.version ? pl->d.h.version : "?", pl->d.h.abi_major, pl->d.h.abi_minor,
	        pl->d.h.description ? pl->d.h.description : "", pl->path);
	if (!pl->d.h.options || pl->d.h.options->type == FK_OPT_END) {
		fprintf(f, "\nno options\n");
		return;
	}
	fprintf(f, "\noptions:\n");
	fk_options_table(pl, f);
}

void fk_options_table(const struct fk_plugin *pl, FILE *f)
{
	for (const struct fk_option *o = pl->d.h.options; o && o->type != FK_OPT_END; o++) {
		char left[64];
		snprintf(left, sizeof left, "--%s%s", o->name,
		         o->type == FK_OPT_FLAG ? "" : o->type == FK_OPT_STRING ? "=TEXT" : "=N");
		fprintf(f, "  %-24s %-8s %s", left, type_name(o->type), o->help ? o->help : "");
		if (o->def)
			fprintf(f, " [default: %s]", o->def);
		fputc('\n', f);
	}
}
