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
#include "value.h"

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
	case FK_OPT_VALUE: {
		/* From text (the command line, a job's single value): a STRING
		 * tree; the plugin decides what the text means. */
		struct fk_value **slot = (struct fk_value **)(base + o->offset), *v;
		if (!value)
			goto missing;
		if (!(v = fk_value_scalar(value, strlen(value), false))) {
			snprintf(err, errlen, "out of memory");
			return FK_ERR_NOMEM;
		}
		fk_value_free(*slot);
		*slot = v;
		return 0;
	}
	case FK_OPT_STRING:
	case FK_OPT_PATH: {
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

int fk_option_set_value(const struct fk_plugin *pl, void *opts, const char *name,
                        struct fk_value *v)
{
	const struct fk_option *o = fk_option_find(pl, name);
	struct fk_value **slot;

	if (!o || o->type != FK_OPT_VALUE)
		return FK_ERR_INTERNAL;
	slot = (struct fk_value **)((char *)opts + o->offset);
	fk_value_free(*slot);
	*slot = v;
	return 0;
}

/* Bytes the engine writes for an option of type t (0: unknown type). */
static size_t type_size(int t)
{
	switch (t) {
	case FK_OPT_FLAG: return sizeof(int);
	case FK_OPT_INT: return sizeof(long long);
	case FK_OPT_DOUBLE: return sizeof(double);
	case FK_OPT_STRING:
	case FK_OPT_PATH: return sizeof(char *);
	case FK_OPT_VALUE: return sizeof(struct fk_value *);
	}
	return 0;
}

/* The alignment the C ABI gives an option's member inside a struct (4
 * for a long long on i386, 8 on x86-64). */
#define ALIGN_OF(T) _Alignof(T)
static size_t type_align(int t)
{
	switch (t) {
	case FK_OPT_FLAG: return ALIGN_OF(int);
	case FK_OPT_INT: return ALIGN_OF(long long);
	case FK_OPT_DOUBLE: return ALIGN_OF(double);
	}
	return ALIGN_OF(char *);
}

static bool valid_option_name(const char *s)
{
	if (!s || !(*s >= 'a' && *s <= 'z'))
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '-'))
			return false;
	return true;
}

/* Longest option table the loader reads before it calls the table
 * unterminated. */
#define OPTIONS_MAX 1024

int fk_options_adopt(struct fk_plugin *pl, char *err, size_t errlen)
{
	const struct fk_option *t = pl->d.h.options;
	size_t n, flagged = 0;

	for (n = 0; t && t[n].type != FK_OPT_END; n++) {
		if (n == OPTIONS_MAX)
			return 0; /* fk_options_validate says so */
		if ((unsigned)t[n].type & FK_OPT_FLAGS_MASK & ~(unsigned)FK_OPT_CMDLINE_ONLY) {
			snprintf(err, errlen, "option '%.60s' has unknown flags 0x%x in its type; use "
			         "the FK_OPT_* flags of <flamekit/plugin.h>", t[n].name ? t[n].name : "(null)",
			         (unsigned)t[n].type & FK_OPT_FLAGS_MASK);
			return FK_ERR_PLUGIN;
		}
		flagged += ((unsigned)t[n].type & FK_OPT_FLAGS_MASK) != 0;
	}
	if (!flagged)
		return 0;
	if (!(pl->own_options = fk_calloc(n + 1, sizeof *pl->own_options)) ||
	    !(pl->optflags = fk_calloc(n + 1, sizeof *pl->optflags)))
		return FK_ERR_NOMEM;
	for (size_t i = 0; i < n; i++) {
		pl->own_options[i] = t[i];
		pl->own_options[i].type = (int)((unsigned)t[i].type & ~FK_OPT_FLAGS_MASK);
		pl->optflags[i] = (unsigned)t[i].type & FK_OPT_FLAGS_MASK;
	}
	pl->d.h.options = pl->own_options; /* ends with the zeroed entry */
	return 0;
}

bool fk_option_cmdline_only(const struct fk_plugin *pl, const struct fk_option *o)
{
	return pl->optflags && o >= pl->own_options &&
	       (pl->optflags[o - pl->own_options] & FK_OPT_CMDLINE_ONLY);
}

int fk_options_validate(const struct fk_plugin *pl, char *err, size_t errlen)
{
	const struct fk_option *t = pl->d.h.options, *o;
	size_t size = pl->d.h.options_size, n;
	char *scratch;
	int rc = 0;

	for (n = 0; t && t[n].type != FK_OPT_END; n++) {
		o = &t[n];
		if (n == OPTIONS_MAX) {
			snprintf(err, errlen, "its option table has more than %d entries; end it with "
			         "FK_OPTION_END", OPTIONS_MAX);
			return FK_ERR_PLUGIN;
		}
		if (!valid_option_name(o->name)) {
			snprintf(err, errlen, "option name \"%.60s\" is not lower-case letters, digits and "
			         "'-' starting with a letter; rename it", o->name ? o->name : "(null)");
			return FK_ERR_PLUGIN;
		}
		for (size_t k = 0; k < n; k++)
			if (strcmp(t[k].name, o->name) == 0) {
				snprintf(err, errlen, "option '%s' is declared twice; remove one of the two "
				         "entries", o->name);
				return FK_ERR_PLUGIN;
			}
		if (!type_size(o->type)) {
			snprintf(err, errlen, "option '%s' has an unknown type %d; use one of the "
			         "FK_OPT_* types of <flamekit/plugin.h>", o->name, o->type);
			return FK_ERR_PLUGIN;
		}
		if (o->offset > size || type_size(o->type) > size - o->offset) {
			snprintf(err, errlen, "option '%s' lies at bytes %zu..%zu, beyond the %zu-byte "
			         "options struct (options_size); set options_size to sizeof the struct "
			         "that holds it", o->name, o->offset, o->offset + type_size(o->type), size);
			return FK_ERR_PLUGIN;
		}
		if (o->offset % type_align(o->type)) {
			snprintf(err, errlen, "option '%s' is at offset %zu, not aligned for its type; "
			         "use offsetof() of a member of that type", o->name, o->offset);
			return FK_ERR_PLUGIN;
		}
	}
	/* Every default must be a valid value: try them all once, here. */
	if (!(scratch = fk_calloc(1, size ? size : 1)))
		return FK_ERR_NOMEM;
	for (o = t; o && o->type != FK_OPT_END && rc == 0; o++) {
		char why[256];
		if (o->def && (rc = set_value(o, scratch, o->def, why, sizeof why)) < 0 &&
		    rc != FK_ERR_NOMEM) {
			snprintf(err, errlen, "option '%s' has a bad default: %s; fix the default text",
			         o->name, why);
			rc = FK_ERR_PLUGIN;
		}
	}
	for (o = t; o && o->type != FK_OPT_END && o->type; o++) {
		if (o->type == FK_OPT_STRING || o->type == FK_OPT_PATH)
			fk_free(*(char **)(scratch + o->offset));
		else if (o->type == FK_OPT_VALUE)
			fk_value_free(*(struct fk_value **)(scratch + o->offset));
	}
	fk_free(scratch);
	return rc;
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
		if (o->type == FK_OPT_STRING || o->type == FK_OPT_PATH)
			fk_free(*(char **)((char *)opts + o->offset));
		else if (o->type == FK_OPT_VALUE)
			fk_value_free(*(struct fk_value **)((char *)opts + o->offset));
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
	case FK_OPT_PATH: return "path";
	case FK_OPT_VALUE: return "value";
	}
	return "?";
}

void fk_options_help(const struct fk_plugin *pl, FILE *f)
{
	fprintf(f, "%s plugin \"%s\" %s (ABI %u.%u)\n  %s\n  loaded from %s\n",
	        fk_kind_name((int)pl->d.h.kind), pl->d.h.name,
	        pl->d.h.version ? pl->d.h.version : "?", pl->d.h.abi_major, pl->d.h.abi_minor,
	        pl->d.h.description ? pl->d.h.description : "", pl->path);
	if (pl->d.h.kind == FK_PLUGIN_INPUT && fk_input_demangle(pl) != FK_DEMANGLE_NO)
		fprintf(f, "  names demangled by default: %s (--no-demangle: as read)\n",
		        fk_demangle_name(fk_input_demangle(pl)));
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
		         o->type == FK_OPT_FLAG ? "" : o->type == FK_OPT_PATH ? "=FILE" :
		         o->type == FK_OPT_STRING || o->type == FK_OPT_VALUE ? "=TEXT" : "=N");
		fprintf(f, "  %-24s %-8s %s", left, type_name(o->type), o->help ? o->help : "");
		if (o->def)
			fprintf(f, " [default: %s]", o->def);
		if (fk_option_cmdline_only(pl, o))
			fprintf(f, " [command line only: a job file cannot set it]");
		fputc('\n', f);
	}
}
