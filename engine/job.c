/*
 * Job files: the schema walk.  ytree.c reads the YAML into a tree and
 * applies --set overrides; this file checks that tree against the job
 * schema (inputs or diff, filters, outputs, output-dir, threads) and the plugins'
 * option tables, and turns it into input, filter and output specs.
 *
 * The engine knows no plugin: option values are set by their declared
 * type.  A PATH option written in the job is resolved against the job
 * file's directory; a VALUE option takes any YAML value as a generic tree
 * (struct fk_value) that the plugin interprets; a filter may give its own
 * options beside `plugin:` as well as under `options:`.
 */
#include <errno.h>
#include <glob.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "job.h"
#include "vector/fkvector.h"
#include "value.h"
#include "ytree.h"


struct in_entry {
	const struct fk_plugin *pl;      /* NULL: auto-detect */
	void *opts;
	const char **names, **values;
	size_t nopts;
};

struct filt {
	const struct fk_plugin *pl;
	void *opts;
	char *where;
};

struct fk_job {
	char *path;
	char *dir;            /* the job file's directory, "" for the current one */
	struct fk_registry *reg;
	struct ynode *root;
	/* arrays grown by fk_vector_grow: n used of cap */
	char **own;           /* strings kept for the job's life */
	size_t nown, capown;
	struct in_entry *ent;
	size_t nent, capent;
	struct fk_input_spec *inputs;
	size_t ninputs, capinputs;
	bool diff;            /* a `diff` job: inputs[0..nbefore) are BEFORE, the rest AFTER */
	size_t nbefore;
	bool normalize, strip_hex;
	size_t nside_filters; /* a diff job: filters[0..n) are BEFORE's, [n..2n) AFTER's */
	struct filt *filters;
	size_t nfilters, capfilters;
	struct fk_output_spec *outputs;
	size_t noutputs, capoutputs;
	unsigned threads;
	char *outdir;
	dev_t dev;            /* the job file's, to refuse an output over it */
	ino_t ino;
};

/* Report at node n: "job.yaml:L:C: message" or "--set KEY: message". */
static int FK_PRINTF(3, 4) yerr(const struct fk_job *j, const struct ynode *n, const char *fmt, ...)
{
	char msg[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	fk_yt_escape(msg, sizeof msg);
	if (n && n->origin)
		fk_log(FK_LOG_ERROR, "%s: %s", n->origin, msg);
	else if (n)
		fk_log(FK_LOG_ERROR, "%s:%u:%u: %s", j->path, n->line, n->col, msg);
	else
		fk_log(FK_LOG_ERROR, "%s: %s", j->path, msg);
	return FK_ERR_USAGE;
}

static int nomem(void)
{
	fk_log(FK_LOG_ERROR, "out of memory");
	return FK_ERR_NOMEM;
}

/* ---- helpers for the schema walk --------------------------------------------- */

/* A new element of `size` bytes, zeroed, at the end of the array *v of *n
 * (capacity *cap, grown by fk_vector_grow); NULL, the array as it was, when
 * out of memory (said). */
static void *append_zeroed(void **v, size_t *n, size_t *cap, size_t size)
{
	char *e;

	if (fk_vector_grow(v, cap, *n + 1, size, fk_realloc) < 0) {
		nomem();
		return NULL;
	}
	e = (char *)*v + *n * size;
	memset(e, 0, size);
	(*n)++;
	return e;
}

static char *keep(struct fk_job *j, char *s)
{
	if (!s)
		return NULL;
	if (fk_vector_grow((void **)&j->own, &j->capown, j->nown + 1, sizeof *j->own,
	                   fk_realloc) < 0) {
		fk_free(s);
		return NULL;
	}
	j->own[j->nown++] = s;
	return s;
}

static const struct ynode *map_get(const struct ynode *m, const char *key)
{
	for (size_t i = 0; i + 1 < m->n; i += 2)
		if (strcmp(m->v[i]->text, key) == 0)
			return m->v[i + 1];
	return NULL;
}

/* Every key of m must be one of `allowed` (NULL-terminated). */
static int check_keys(const struct fk_job *j, const struct ynode *m, const char *what,
                      const char *const *allowed)
{
	for (size_t i = 0; i + 1 < m->n; i += 2) {
		const char *const *a;
		for (a = allowed; *a; a++)
			if (strcmp(*a, m->v[i]->text) == 0)
				break;
		if (!*a) {
			char list[512] = "";
			for (a = allowed; *a; a++)
				snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s",
				         a == allowed ? "" : ", ", *a);
			return yerr(j, m->v[i], "unknown key '%s' in %s (allowed: %s)", m->v[i]->text, what, list);
		}
	}
	return 0;
}

static int want(const struct fk_job *j, const struct ynode *n, int type, const char *what)
{
	static const char *const names[] = { "text", "a mapping", "a list" };
	if (n->type == type)
		return 0;
	return yerr(j, n, "%s must be %s, not %s", what, names[type], fk_yt_found(n));
}

/* Resolve a path relative to `base` ("" = as given). */
static char *resolve(struct fk_job *j, const char *base, const char *p)
{
	char *r;
	if (p[0] == '/' || strcmp(p, "-") == 0 || !base[0])
		return keep(j, fk_strdup(p));
	r = fk_malloc(strlen(base) + strlen(p) + 2);
	if (!r)
		return NULL;
	sprintf(r, "%s/%s", base, p);
	return keep(j, r);
}

static const char *plugin_list(const struct fk_registry *r, int kind, struct fk_buf *b)
{
	for (size_t i = 0; i < r->n; i++)
		if ((int)r->v[i]->d.h.kind == kind)
			fk_buf_printf(b, "%s%s", b->len ? ", " : "", r->v[i]->d.h.name);
	return b->data ? b->data : "none";
}

static int find_plugin(struct fk_job *j, const struct ynode *n, int kind, const struct fk_plugin **out)
{
	struct fk_buf b = { 0 };
	int rc;

	if ((rc = want(j, n, Y_SCALAR, "a plugin name")) < 0)
		return rc;
	*out = fk_registry_find(j->reg, kind, n->text);
	if (*out)
		return 0;
	rc = yerr(j, n, "unknown %s plugin \"%s\" (available: %s)", fk_kind_name(kind), n->text,
	          plugin_list(j->reg, kind, &b));
	fk_buf_free(&b);
	return rc;
}

/* A YAML value as a generic tree for an FK_OPT_VALUE option.  The depth
 * is bounded by the reader's FK_JOB_DEPTH_MAX. */
static struct fk_value *to_value(const struct ynode *n)
{
	struct fk_value *v;

	if (n->type == Y_SCALAR)
		return fk_value_scalar(n->text, n->len, n->plain);
	if (!(v = fk_value_new(n->type == Y_MAP ? FK_VALUE_MAP : FK_VALUE_LIST)))
		return NULL;
	for (size_t i = 0; i < n->n; i += n->type == Y_MAP ? 2 : 1) {
		const struct ynode *key = n->type == Y_MAP ? n->v[i] : NULL;
		struct fk_value *item = to_value(key ? n->v[i + 1] : n->v[i]);
		if (!item || fk_value_add(v, key ? key->text : NULL, key ? key->len : 0, item) < 0) {
			fk_value_free(item);
			fk_value_free(v);
			return NULL;
		}
	}
	return v;
}

/*
 * An option declared FK_OPT_CMDLINE_ONLY (one that names a program to
 * run) given a value by the job file itself is refused, at the key: a job
 * file is data passed around, and must not choose what flamekit executes.
 * A value from --set is the command line's.  The engine knows no such
 * option by name: the plugin's table says which they are.
 */
static int refuse_cmdline_only(struct fk_job *j, const struct fk_plugin *pl,
                               const struct ynode *k, const struct ynode *v)
{
	if (v->origin)
		return 0;
	return yerr(j, k, "a job file cannot set '%s' of the %s plugin \"%s\", which names a "
	            "program to run: it belongs on the command line (--%s, or flamekit run --set) "
	            "or in the environment that flamekit plugins --help %s names", k->text,
	            fk_kind_name((int)pl->d.h.kind), pl->d.h.name, k->text, pl->d.h.name);
}

/* Set option k (a key node) of pl to v, by the option's declared type. */
static int set_one(struct fk_job *j, const struct fk_plugin *pl, void *opts,
                   const struct ynode *k, const struct ynode *v)
{
	const struct fk_option *o = fk_option_find(pl, k->text);
	const char *value;
	char err[1024];
	int rc;

	if (!o) {
		fk_option_set(pl, opts, k->text, "", err, sizeof err);
		return yerr(j, k, "%s", err);
	}
	if (fk_option_cmdline_only(pl, o) && (rc = refuse_cmdline_only(j, pl, k, v)) < 0)
		return rc;
	if (o->type == FK_OPT_VALUE) {
		struct fk_value *tree = fk_yt_is_null(v) ? NULL : to_value(v);
		if (!tree && !fk_yt_is_null(v))
			return nomem();
		return fk_option_set_value(pl, opts, k->text, tree);
	}
	if (v->type != Y_SCALAR)
		return yerr(j, v, "option '%s' takes a single value, not %s", k->text, fk_yt_found(v));
	value = v->text;
	if (fk_yt_is_null(v) && o->type == FK_OPT_FLAG)
		value = NULL; /* "flag:" alone means on */
	if (o->type == FK_OPT_PATH && v->len && !(value = resolve(j, j->dir, v->text)))
		return nomem();
	rc = fk_option_set(pl, opts, k->text, value, err, sizeof err);
	if (rc < 0)
		return rc == FK_ERR_NOMEM ? nomem() : yerr(j, v, "%s", err);
	return 0;
}

/* "a filter needs a plugin (plugin: one of NAME, NAME)": the loaded ones. */
static int need_plugin(struct fk_job *j, const struct ynode *n, const char *what, int kind)
{
	struct fk_buf b = { 0 };
	int rc = yerr(j, n, "%s needs a plugin (plugin: one of %s)", what, plugin_list(j->reg, kind, &b));

	fk_buf_free(&b);
	return rc;
}

/* Apply an `options` mapping to a plugin's options struct. */
static int set_options(struct fk_job *j, const struct fk_plugin *pl, void *opts, const struct ynode *m)
{
	int rc;

	if ((rc = want(j, m, Y_MAP, "options")) < 0)
		return rc;
	for (size_t i = 0; i + 1 < m->n; i += 2)
		if ((rc = set_one(j, pl, opts, m->v[i], m->v[i + 1])) < 0)
			return rc;
	return 0;
}

static char *where_of(struct fk_job *j, const struct ynode *n)
{
	char buf[1024];
	if (n->origin)
		snprintf(buf, sizeof buf, "%s", n->origin);
	else
		snprintf(buf, sizeof buf, "%s:%u:%u", j->path, n->line, n->col);
	return fk_strdup(buf);
}

/* ---- inputs --------------------------------------------------------------------- */

static int add_input(struct fk_job *j, const char *path, int series, const char *where)
{
	struct fk_input_spec *v = append_zeroed((void **)&j->inputs, &j->ninputs, &j->capinputs,
	                                        sizeof *j->inputs);

	if (!v)
		return FK_ERR_NOMEM;
	v->path = path;
	v->series = series;
	v->where = where;
	return 0;
}

static int input_path(struct fk_job *j, const struct ynode *n, int series)
{
	const char *where;
	char *p;
	int rc;

	if ((rc = want(j, n, Y_SCALAR, "an input path")) < 0)
		return rc;
	if (!(p = resolve(j, j->dir, n->text)))
		return nomem();
	where = p;
	if (strcmp(p, "-") == 0)
		return add_input(j, p, series, where);
	if (strpbrk(n->text, "*?[")) {
		glob_t g;
		int gr = glob(p, 0, NULL, &g);
		if (gr == GLOB_NOMATCH)
			return yerr(j, n, "no file matches \"%s\"", n->text);
		if (gr != 0)
			return yerr(j, n, "cannot expand \"%s\"", n->text);
		for (size_t i = 0; i < g.gl_pathc && rc == 0; i++) {
			char *q = keep(j, fk_strdup(g.gl_pathv[i]));
			rc = q ? add_input(j, q, series, q) : nomem();
		}
		globfree(&g);
		return rc;
	}
	if (access(p, R_OK) < 0)
		return yerr(j, n, "cannot read \"%s\": %s", p, strerror(errno));
	return add_input(j, p, series, where);
}

/* The type of option `name` in the input plugins that have one (FK_OPT_END
 * when none has): the format is known only once the input is read.  *cmd
 * is the first plugin where it is FK_OPT_CMDLINE_ONLY, or NULL. */
static int any_input_option(const struct fk_registry *r, const char *name,
                            const struct fk_plugin **cmd)
{
	const struct fk_option *o;
	int type = FK_OPT_END;

	*cmd = NULL;
	for (size_t i = 0; i < r->n; i++)
		if (r->v[i]->d.h.kind == FK_PLUGIN_INPUT && (o = fk_option_find(r->v[i], name))) {
			if (type == FK_OPT_END)
				type = o->type;
			if (!*cmd && fk_option_cmdline_only(r->v[i], o))
				*cmd = r->v[i];
		}
	return type;
}

static int parse_input(struct fk_job *j, const struct ynode *n)
{
	static const char *const keys[] = { "path", "format", "series", "demangle", "options", NULL };
	const struct ynode *path = n, *fmt = NULL, *ser = NULL, *opt = NULL, *dmg = NULL;
	struct in_entry *e;
	size_t first = j->ninputs;
	int series = 0, demangle = FK_DMG_PLUGIN, rc;

	if (!(e = append_zeroed((void **)&j->ent, &j->nent, &j->capent, sizeof *j->ent)))
		return FK_ERR_NOMEM;
	if (n->type == Y_MAP) {
		if ((rc = check_keys(j, n, "an input", keys)) < 0)
			return rc;
		path = map_get(n, "path");
		fmt = map_get(n, "format");
		ser = map_get(n, "series");
		opt = map_get(n, "options");
		dmg = map_get(n, "demangle");
		if (!path)
			return yerr(j, n, "an input needs a path");
	} else if (n->type != Y_SCALAR) {
		return yerr(j, n, "an input must be a path or a mapping, not %s", fk_yt_found(n));
	}
	if (ser) {
		static const char *const names[] = { "baseline", "current", "on-cpu", "off-cpu", "0", "1" };
		if ((rc = want(j, ser, Y_SCALAR, "series")) < 0)
			return rc;
		series = -1;
		for (int i = 0; i < 6; i++)
			if (strcmp(ser->text, names[i]) == 0)
				series = i % 2;
		if (series < 0)
			return yerr(j, ser, "series must be baseline, current, on-cpu, off-cpu, 0 or 1, not %s",
			            fk_yt_found(ser));
	}
	if (dmg) {
		if ((rc = want(j, dmg, Y_SCALAR, "demangle")) < 0)
			return rc;
		if ((demangle = fk_demangle_parse(dmg->text)) < 0)
			return yerr(j, dmg, "demangle must be no, full or short, not %s", fk_yt_found(dmg));
	}
	if (fmt) {
		if ((rc = want(j, fmt, Y_SCALAR, "format")) < 0)
			return rc;
		if (strcmp(fmt->text, "auto") != 0 && (rc = find_plugin(j, fmt, FK_PLUGIN_INPUT, &e->pl)) < 0)
			return rc;
	}
	if (opt && !fk_yt_is_null(opt)) {
		if (e->pl) {
			if ((rc = fk_options_new(e->pl, &e->opts)) < 0)
				return nomem();
			if ((rc = set_options(j, e->pl, e->opts, opt)) < 0)
				return rc;
		} else {
			if ((rc = want(j, opt, Y_MAP, "options")) < 0)
				return rc;
			e->names = fk_calloc(opt->n / 2 + 1, sizeof *e->names);
			e->values = fk_calloc(opt->n / 2 + 1, sizeof *e->values);
			if (!e->names || !e->values)
				return nomem();
			for (size_t i = 0; i + 1 < opt->n; i += 2) {
				const struct ynode *key = opt->v[i], *v = opt->v[i + 1];
				const struct fk_plugin *cmd;
				int type = any_input_option(j->reg, key->text, &cmd);
				if (type == FK_OPT_END)
					return yerr(j, key, "no input plugin has an option '%s' (see flamekit plugins "
					            "--help NAME)", key->text);
				if (cmd && (rc = refuse_cmdline_only(j, cmd, key, v)) < 0)
					return rc;
				if (v->type != Y_SCALAR)
					return yerr(j, v, "option '%s' takes a single value, not %s", key->text, fk_yt_found(v));
				e->names[e->nopts] = key->text;
				e->values[e->nopts] = fk_yt_is_null(v) ? NULL : v->text;
				if (type == FK_OPT_PATH && v->len && !(e->values[e->nopts] = resolve(j, j->dir, v->text)))
					return nomem();
				e->nopts++;
			}
		}
	}
	if (e->pl) {
		char *where = where_of(j, n);
		if (!where || !keep(j, where) || (!e->opts && fk_options_new(e->pl, &e->opts) < 0))
			return nomem();
		if ((rc = fk_options_check(e->pl, e->opts, where)) < 0)
			return rc;
	}
	if (path->type == Y_SEQ) {
		if (path->n == 0)
			return yerr(j, path, "an input's path list is empty");
		for (size_t i = 0; i < path->n; i++)
			if ((rc = input_path(j, path->v[i], series)) < 0)
				return rc;
	} else if ((rc = input_path(j, path, series)) < 0) {
		return rc;
	}
	for (size_t i = first; i < j->ninputs; i++) {
		j->inputs[i].plugin = e->pl;
		j->inputs[i].opts = e->opts;
		j->inputs[i].optnames = e->names;
		j->inputs[i].optvalues = e->values;
		j->inputs[i].nopts = e->nopts;
		j->inputs[i].demangle = demangle;
	}
	return 0;
}


/* ---- filters ---------------------------------------------------------------------- */



/* A filter: `plugin`, `options`, and any of the plugin's own options
 * beside them (`exclude: x` for `options: {exclude: x}`), applied
 * after `options`. */
static int parse_filter(struct fk_job *j, const struct ynode *n)
{
	const struct ynode *pn, *opt;
	struct filt *f;
	int rc;

	if ((rc = want(j, n, Y_MAP, "a filter")) < 0)
		return rc;
	if (!(pn = map_get(n, "plugin")))
		return need_plugin(j, n, "a filter", FK_PLUGIN_FILTER);
	if (!(f = append_zeroed((void **)&j->filters, &j->nfilters, &j->capfilters, sizeof *f)))
		return FK_ERR_NOMEM;
	if ((rc = find_plugin(j, pn, FK_PLUGIN_FILTER, &f->pl)) < 0)
		return rc;
	for (size_t i = 0; i + 1 < n->n; i += 2) {
		const char *key = n->v[i]->text;
		if (strcmp(key, "plugin") && strcmp(key, "options") && !fk_option_find(f->pl, key)) {
			struct fk_buf b = { 0 };
			if (fk_buf_printf(&b, "plugin, options") < 0 ||
			    (f->pl->d.h.options && f->pl->d.h.options->type != FK_OPT_END &&
			     (fk_buf_printf(&b, ", ") < 0 || fk_option_names(f->pl, &b) < 0))) {
				fk_buf_free(&b);
				return nomem();
			}
			rc = yerr(j, n->v[i], "unknown key '%s' in a filter (allowed: %s)", key, b.data);
			fk_buf_free(&b);
			return rc;
		}
	}
	if (!(f->where = where_of(j, n)))
		return nomem();
	if (fk_options_new(f->pl, &f->opts) < 0)
		return nomem();
	opt = map_get(n, "options");
	if (opt && !fk_yt_is_null(opt) && (rc = set_options(j, f->pl, f->opts, opt)) < 0)
		return rc;
	for (size_t i = 0; i + 1 < n->n; i += 2)
		if (strcmp(n->v[i]->text, "plugin") && strcmp(n->v[i]->text, "options") &&
		    (rc = set_one(j, f->pl, f->opts, n->v[i], n->v[i + 1])) < 0)
			return rc;
	return fk_options_check(f->pl, f->opts, f->where);
}

/* ---- diff ---------------------------------------------------------------------------- */

/* One side of a diff: an input (as an `inputs` item) or a list of them. */
static int parse_side(struct fk_job *j, const struct ynode *n, const char *what)
{
	int rc;

	if (n->type != Y_SEQ)
		return parse_input(j, n);
	if (n->n == 0)
		return yerr(j, n, "the %s list is empty", what);
	for (size_t i = 0; i < n->n; i++)
		if ((rc = parse_input(j, n->v[i])) < 0)
			return rc;
	return 0;
}

static int parse_bool(const struct fk_job *j, const struct ynode *n, const char *what, bool *out)
{
	int rc;

	if ((rc = want(j, n, Y_SCALAR, what)) < 0)
		return rc;
	if (strcmp(n->text, "true") == 0 || strcmp(n->text, "false") == 0) {
		*out = n->text[0] == 't';
		return 0;
	}
	return yerr(j, n, "%s must be true or false, not %s", what, fk_yt_found(n));
}

/* `diff: {before, after, normalize, strip-hex}`: flamekit diff's BEFORE,
 * AFTER, -n and -s. */
static int parse_diff(struct fk_job *j, const struct ynode *n)
{
	static const char *const keys[] = { "before", "after", "normalize", "strip-hex", NULL };
	const struct ynode *before, *after, *norm, *strip;
	int rc;

	if ((rc = want(j, n, Y_MAP, "diff")) < 0 || (rc = check_keys(j, n, "diff", keys)) < 0)
		return rc;
	before = map_get(n, "before");
	after = map_get(n, "after");
	norm = map_get(n, "normalize");
	strip = map_get(n, "strip-hex");
	if (!before)
		return yerr(j, n, "diff needs before (the baseline's inputs)");
	if (!after)
		return yerr(j, n, "diff needs after (the inputs compared with before)");
	if ((norm && (rc = parse_bool(j, norm, "normalize", &j->normalize)) < 0) ||
	    (strip && (rc = parse_bool(j, strip, "strip-hex", &j->strip_hex)) < 0))
		return rc;
	if ((rc = parse_side(j, before, "before")) < 0)
		return rc;
	j->nbefore = j->ninputs;
	if ((rc = parse_side(j, after, "after")) < 0)
		return rc;
	j->diff = true;
	return 0;
}

/* The key node of `key` in mapping m (m holds it). */
static const struct ynode *map_key(const struct ynode *m, const char *key)
{
	for (size_t i = 0; i + 1 < m->n; i += 2)
		if (strcmp(m->v[i]->text, key) == 0)
			return m->v[i];
	return m;
}

/* ---- outputs ------------------------------------------------------------------------ */

/* Is p, the output just added, a file an earlier output already writes,
 * however spelled ("./x", "d/../x", a link to x)? */
static int output_clash(const struct fk_job *j, const struct ynode *at, const char *p)
{
	for (size_t i = 0; i + 1 < j->noutputs; i++) {
		const char *q = j->outputs[i].path;
		if (!fk_output_same(q, p))
			continue;
		if (strcmp(q, p) == 0)
			return yerr(j, at, "two outputs write \"%s\"", p);
		return yerr(j, at, "two outputs write the same file: \"%s\" is \"%s\"", p, q);
	}
	return 0;
}

static int parse_output(struct fk_job *j, const struct ynode *n)
{
	static const char *const keys[] = { "plugin", "path", "options", NULL };
	const struct ynode *pn, *path, *opt;
	struct fk_output_spec *o;
	char *p, *slash;
	int rc;

	if ((rc = want(j, n, Y_MAP, "an output")) < 0)
		return rc;
	if ((rc = check_keys(j, n, "an output", keys)) < 0)
		return rc;
	if (!(pn = map_get(n, "plugin")))
		return need_plugin(j, n, "an output", FK_PLUGIN_OUTPUT);
	if (!(path = map_get(n, "path")))
		return yerr(j, n, "an output needs a path (\"-\" for stdout)");
	if (!(o = append_zeroed((void **)&j->outputs, &j->noutputs, &j->capoutputs, sizeof *o)))
		return FK_ERR_NOMEM;
	if ((rc = find_plugin(j, pn, FK_PLUGIN_OUTPUT, &o->plugin)) < 0)
		return rc;
	if (fk_options_new(o->plugin, &o->opts) < 0)
		return nomem();
	opt = map_get(n, "options");
	if (opt && !fk_yt_is_null(opt) && (rc = set_options(j, o->plugin, o->opts, opt)) < 0)
		return rc;
	if (!(o->where = where_of(j, n)) || !keep(j, (char *)o->where))
		return nomem();
	if ((rc = fk_options_check(o->plugin, o->opts, o->where)) < 0)
		return rc;
	if ((rc = want(j, path, Y_SCALAR, "an output path")) < 0)
		return rc;
	if (path->len == 0)
		return yerr(j, path, "an output path cannot be empty");
	if (!(p = resolve(j, j->outdir, path->text)))
		return nomem();
	o->path = p;
	if (strcmp(p, "-") != 0 && (slash = strrchr(p, '/')) != NULL) {
		struct stat st;
		char *dir = fk_strndup(p, (size_t)(slash - p) + (slash == p));
		if (!dir)
			return nomem();
		if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode)) {
			rc = yerr(j, path, "cannot write \"%s\": the directory \"%s\" does not exist", p, dir);
			fk_free(dir);
			return rc;
		}
		fk_free(dir);
	}
	if ((rc = output_clash(j, path, p)) < 0)
		return rc;
	/* By inode, not by name: "./job.yaml", "../dir/job.yaml" and a link
	 * are all the job file; the same for an input. */
	if (j->ino && fk_output_replaces(p, j->dev, j->ino))
		return yerr(j, path, "the output \"%s\" would overwrite this job file", p);
	for (size_t i = 0; i < j->ninputs; i++) {
		struct stat st;
		const char *in = j->inputs[i].path;
		if (strcmp(in, "-") != 0 && stat(in, &st) == 0 && fk_output_replaces(p, st.st_dev, st.st_ino))
			return yerr(j, path, "the output \"%s\" would overwrite the input \"%s\"", p, in);
	}
	return 0;
}


/* ---- the job ------------------------------------------------------------------------ */

void fk_job_free(struct fk_job *j)
{
	if (!j)
		return;
	fk_yt_free(j->root);
	for (size_t i = 0; i < j->nent; i++) {
		if (j->ent[i].pl)
			fk_options_free(j->ent[i].pl, j->ent[i].opts);
		fk_free(j->ent[i].names);
		fk_free(j->ent[i].values);
	}
	fk_free(j->ent);
	fk_free(j->inputs);
	for (size_t i = 0; i < j->nfilters; i++) {
		if (j->filters[i].pl)
			fk_options_free(j->filters[i].pl, j->filters[i].opts);
		fk_free(j->filters[i].where);
	}
	fk_free(j->filters);
	for (size_t i = 0; i < j->noutputs; i++)
		if (j->outputs[i].plugin)
			fk_options_free(j->outputs[i].plugin, j->outputs[i].opts);
	fk_free(j->outputs);
	for (size_t i = 0; i < j->nown; i++)
		fk_free(j->own[i]);
	fk_free(j->own);
	fk_free(j->path);
	fk_free(j->dir);
	fk_free(j);
}


static int walk(struct fk_job *j)
{
	static const char *const keys[] = { "inputs", "diff", "filters", "outputs", "output-dir",
	                                    "threads", NULL };
	const struct ynode *r = j->root, *in, *df, *fl, *out, *od, *th;
	int rc;

	if (!r || fk_yt_is_null(r))
		return yerr(j, NULL, "the job is empty (it needs inputs and outputs)");
	if ((rc = want(j, r, Y_MAP, "a job")) < 0 || (rc = check_keys(j, r, "a job", keys)) < 0)
		return rc;
	in = map_get(r, "inputs");
	df = map_get(r, "diff");
	fl = map_get(r, "filters");
	out = map_get(r, "outputs");
	od = map_get(r, "output-dir");
	th = map_get(r, "threads");
	if (in && df)
		return yerr(j, map_key(r, "diff"), "a job has inputs or diff, not both");
	if (!in && !df)
		return yerr(j, r, "the job has no inputs");
	if (!out)
		return yerr(j, r, "the job has no outputs");
	if (th) {
		char *end;
		long t;
		if ((rc = want(j, th, Y_SCALAR, "threads")) < 0)
			return rc;
		t = strtol(th->text, &end, 10);
		if (*end || end == th->text || t < 1 || t > 256)
			return yerr(j, th, "threads must be a number from 1 to 256, not %s", fk_yt_found(th));
		j->threads = (unsigned)t;
	}
	j->outdir = j->dir;
	if (od) {
		if ((rc = want(j, od, Y_SCALAR, "output-dir")) < 0)
			return rc;
		if (!(j->outdir = resolve(j, j->dir, od->text)))
			return nomem();
	}
	if (df && (rc = parse_diff(j, df)) < 0)
		return rc;
	if (in && (rc = want(j, in, Y_SEQ, "inputs")) < 0)
		return rc;
	if (in && in->n == 0)
		return yerr(j, in, "the input list is empty");
	for (size_t i = 0; in && i < in->n; i++)
		if ((rc = parse_input(j, in->v[i])) < 0)
			return rc;
	if (fl && !fk_yt_is_null(fl)) {
		if ((rc = want(j, fl, Y_SEQ, "filters")) < 0)
			return rc;
		/* a diff job filters each side with instances of its own (a
		 * narrow filter's --from counts from that side's first sample) */
		for (int pass = 0; pass < (df ? 2 : 1); pass++)
			for (size_t i = 0; i < fl->n; i++)
				if ((rc = parse_filter(j, fl->v[i])) < 0)
					return rc;
		j->nside_filters = df ? fl->n : 0;
	}
	if ((rc = want(j, out, Y_SEQ, "outputs")) < 0)
		return rc;
	if (out->n == 0)
		return yerr(j, out, "the output list is empty");
	for (size_t i = 0; i < out->n; i++)
		if ((rc = parse_output(j, out->v[i])) < 0)
			return rc;
	return 0;
}

int fk_job_load(struct fk_job **out, const char *path, struct fk_registry *reg,
                const char *const *sets, size_t nsets)
{
	struct fk_job *j = fk_calloc(1, sizeof *j);
	const char *slash;
	char *text = NULL;
	size_t len = 0;
	int rc;

	*out = NULL;
	if (!j)
		return nomem();
	j->reg = reg;
	slash = strrchr(path, '/');
	j->path = fk_strdup(path);
	j->dir = slash ? fk_strndup(path, (size_t)(slash - path) + (slash == path)) : fk_strdup("");
	if (!j->path || !j->dir) {
		rc = nomem();
		goto fail;
	}
	if ((rc = fk_yt_read_file(path, &text, &len)) < 0)
		goto fail;
	{
		struct stat st;
		if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
			j->dev = st.st_dev;
			j->ino = st.st_ino;
		}
	}
	rc = fk_yt_read(path, (const unsigned char *)(text ? text : ""), len, &j->root);
	fk_free(text);
	if (rc < 0)
		goto fail;
	for (size_t i = 0; i < nsets; i++)
	{
		char *origin;
		rc = fk_yt_set(&j->root, sets[i], &origin);
		if (origin && !keep(j, origin))
			rc = nomem();
		if (rc < 0)
			goto fail;
	}
	if ((rc = walk(j)) < 0)
		goto fail;
	*out = j;
	return 0;
fail:
	fk_job_free(j);
	return rc;
}

const struct fk_input_spec *fk_job_inputs(const struct fk_job *j, size_t *n)
{
	*n = j->ninputs;
	return j->inputs;
}

const struct fk_output_spec *fk_job_outputs(const struct fk_job *j, size_t *n)
{
	*n = j->noutputs;
	return j->outputs;
}

/* Free a chain made by make_chain, handing the filters' options back to
 * the job first (the chain would free them): a job can be checked, then
 * run, or run twice. */
static void free_chain(struct fk_job *j, struct fk_filter_chain *fc, size_t from)
{
	for (size_t i = 0; i < fc->n; i++) {
		j->filters[from + i].opts = fc->v[i].opts;
		fc->v[i].opts = NULL;
	}
	fk_filter_chain_free(fc);
}

/* A chain of filters[from..from+n). */
static int make_chain(struct fk_job *j, struct fk_filter_chain *fc, size_t from, size_t n)
{
	memset(fc, 0, sizeof *fc);
	for (size_t i = from; i < from + n; i++) {
		struct filt *f = &j->filters[i];
		int rc = fk_filter_chain_add(fc, f->pl, f->opts, f->where);
		if (rc < 0) {
			free_chain(j, fc, from);
			return rc;
		}
		f->opts = NULL; /* the chain holds them until free_chain */
	}
	return 0;
}

int fk_job_check(struct fk_job *j)
{
	struct fk_filter_chain fc;
	int rc = make_chain(j, &fc, 0, j->nfilters);
	if (rc == 0)
		free_chain(j, &fc, 0);
	return rc;
}

static int run_diff(struct fk_job *j, unsigned threads, int progress)
{
	size_t n = j->nside_filters;
	struct fk_diff d;
	int rc;

	memset(&d, 0, sizeof d);
	if ((rc = make_chain(j, &d.filters[0], 0, n)) < 0)
		return rc;
	if ((rc = make_chain(j, &d.filters[1], n, n)) < 0) {
		free_chain(j, &d.filters[0], 0);
		return rc;
	}
	d.reg = j->reg;
	d.sides[0] = j->inputs;
	d.nsides[0] = j->nbefore;
	d.sides[1] = j->inputs + j->nbefore;
	d.nsides[1] = j->ninputs - j->nbefore;
	d.outputs = j->outputs;
	d.noutputs = j->noutputs;
	d.normalize = j->normalize;
	d.strip_hex = j->strip_hex;
	d.threads = threads;
	d.progress = progress;
	rc = fk_diff_run(&d);
	free_chain(j, &d.filters[0], 0);
	free_chain(j, &d.filters[1], n);
	return rc;
}

int fk_job_run(struct fk_job *j, unsigned threads, unsigned fallback, int progress)
{
	struct fk_pipeline pl;
	int rc;

	threads = threads ? threads : j->threads ? j->threads : fallback ? fallback : 1;
	if (j->diff)
		return run_diff(j, threads, progress);
	memset(&pl, 0, sizeof pl);
	if ((rc = make_chain(j, &pl.filters, 0, j->nfilters)) < 0)
		return rc;
	pl.reg = j->reg;
	pl.inputs = j->inputs;
	pl.ninputs = j->ninputs;
	pl.outputs = j->outputs;
	pl.noutputs = j->noutputs;
	pl.threads = threads;
	pl.progress = progress;
	rc = fk_pipeline_run(&pl);
	free_chain(j, &pl.filters, 0);
	return rc;
}