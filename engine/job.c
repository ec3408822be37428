/*
 * YAML job files.  The text is read with libyaml's event API into a small
 * tree of scalars, mappings and lists, each node keeping its line and
 * column; then --set overrides are applied and the tree is walked against
 * the job schema (the README) and the plugins' option tables.
 *
 * The event API rather than the document API: libyaml 0.2.5 silently
 * accepts duplicate keys, expands nothing but happily builds alias graphs,
 * and has no depth limit.  Reading events lets us refuse aliases and
 * anchors as they appear (a billion-laughs file fails at its first alias),
 * stop at FK_JOB_DEPTH_MAX levels, and catch duplicate keys with both
 * positions.
 */
#include <errno.h>
#include <glob.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <yaml.h>

#include "job.h"

enum { Y_SCALAR, Y_MAP, Y_SEQ };

struct ynode {
	int type;
	char *text;           /* scalar, NUL-terminated */
	size_t len;
	bool plain;           /* unquoted scalar: may be a number, true, null */
	unsigned line, col;   /* 1-based, in the job file */
	const char *origin;   /* NULL: the file; else "--set KEY" (owned by the job) */
	struct ynode **v;     /* map: key, value, key, value ...; list: items */
	size_t n, cap;
};

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
	char **own;           /* strings kept for the job's life */
	size_t nown;
	struct in_entry *ent;
	size_t nent;
	struct fk_input_spec *inputs;
	size_t ninputs;
	struct filt *filters;
	size_t nfilters;
	struct fk_output_spec *outputs;
	size_t noutputs;
	unsigned threads;
	char *outdir;
	dev_t dev;            /* the job file's, to refuse an output over it */
	ino_t ino;
};

#define MAP_KEYS_MAX 4096

/* ---- the tree ----------------------------------------------------------- */

static void ynode_free(struct ynode *n)
{
	if (!n)
		return;
	for (size_t i = 0; i < n->n; i++)
		ynode_free(n->v[i]);
	fk_free(n->v);
	fk_free(n->text);
	fk_free(n);
}

static struct ynode *ynode_new(int type, unsigned line, unsigned col)
{
	struct ynode *n = fk_calloc(1, sizeof *n);
	if (n) {
		n->type = type;
		n->line = line;
		n->col = col;
	}
	return n;
}

static int ynode_push(struct ynode *p, struct ynode *k)
{
	if (p->n == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 8;
		struct ynode **v = fk_realloc(p->v, cap * sizeof *v);
		if (!v)
			return FK_ERR_NOMEM;
		p->v = v;
		p->cap = cap;
	}
	p->v[p->n++] = k;
	return 0;
}

static const char *found(const struct ynode *n)
{
	static char buf[96];
	if (n->type == Y_MAP)
		return "a mapping";
	if (n->type == Y_SEQ)
		return "a list";
	snprintf(buf, sizeof buf, "\"%.60s%s\"", n->text, n->len > 60 ? "..." : "");
	return buf;
}

/* Write control characters of s as \n, \t or \xHH, in place (cut to
 * size): a quoted job value may hold a newline, and echoed raw it would
 * start a line of its own that looks like another message. */
static void escape_controls(char *s, size_t size)
{
	char tmp[2048];
	size_t o = 0;

	for (const unsigned char *p = (const unsigned char *)s; *p && o + 5 < sizeof tmp; p++) {
		if (*p == '\n' || *p == '\t') {
			tmp[o++] = '\\';
			tmp[o++] = *p == '\n' ? 'n' : 't';
		} else if (*p < 0x20 || *p == 0x7f) {
			o += (size_t)snprintf(tmp + o, sizeof tmp - o, "\\x%02x", *p);
		} else {
			tmp[o++] = (char)*p;
		}
	}
	tmp[o] = '\0';
	snprintf(s, size, "%s", tmp);
}

/* Report at node n: "job.yaml:L:C: message" or "--set KEY: message". */
static int FK_PRINTF(3, 4) yerr(const struct fk_job *j, const struct ynode *n, const char *fmt, ...)
{
	char msg[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	escape_controls(msg, sizeof msg);
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

/* ---- reading YAML ---------------------------------------------------------- */

static int mark_err(const char *name, const yaml_mark_t *m, const char *fmt, const char *arg)
{
	char msg[1024];
	snprintf(msg, sizeof msg, fmt, arg);
	fk_log(FK_LOG_ERROR, "%s:%zu:%zu: %s", name, m->line + 1, m->column + 1, msg);
	return FK_ERR_USAGE;
}

/* Attach n under the open collection p (NULL: n is the document). */
static int attach(const char *name, struct ynode *p, struct ynode *n, struct ynode **doc)
{
	if (!p) {
		*doc = n;
		return 0;
	}
	if (p->type == Y_MAP && p->n % 2 == 0) {
		char msg[512];
		if (n->type != Y_SCALAR) {
			fk_log(FK_LOG_ERROR, "%s:%u:%u: a key must be plain text, not %s", name, n->line,
			       n->col, found(n));
			return FK_ERR_USAGE;
		}
		if (p->n / 2 >= MAP_KEYS_MAX) {
			fk_log(FK_LOG_ERROR, "%s:%u:%u: more than %d keys in one mapping", name, n->line,
			       n->col, MAP_KEYS_MAX);
			return FK_ERR_USAGE;
		}
		for (size_t i = 0; i < p->n; i += 2)
			if (p->v[i]->len == n->len && memcmp(p->v[i]->text, n->text, n->len) == 0) {
				snprintf(msg, sizeof msg, "duplicate key '%.80s' (first given at line %u, column %u)",
				         n->text, p->v[i]->line, p->v[i]->col);
				fk_log(FK_LOG_ERROR, "%s:%u:%u: %s", name, n->line, n->col, msg);
				return FK_ERR_USAGE;
			}
	}
	return ynode_push(p, n) < 0 ? nomem() : 0;
}

static int yaml_read(const char *name, const unsigned char *text, size_t len, struct ynode **out)
{
	yaml_parser_t ps;
	yaml_event_t ev;
	struct ynode *stack[FK_JOB_DEPTH_MAX + 1], *doc = NULL;
	int sp = 0, docs = 0, rc = 0;
	bool done = false;

	*out = NULL;
	if (!yaml_parser_initialize(&ps))
		return nomem();
	yaml_parser_set_input_string(&ps, text, len);
	while (!done && rc == 0) {
		const char *anchor = NULL, *tag = NULL;
		struct ynode *n = NULL;
		unsigned line, col;

		if (!yaml_parser_parse(&ps, &ev)) {
			char msg[512];
			snprintf(msg, sizeof msg, "%s%s%s", ps.problem ? ps.problem : "unreadable YAML",
			         ps.context ? " " : "", ps.context ? ps.context : "");
			if (ps.error == YAML_READER_ERROR) {
				/* encoding errors carry a byte offset, not a mark */
				yaml_mark_t m = { 0, 0, 0 };
				for (size_t i = 0; i < ps.problem_offset && i < len; i++, m.column++)
					if (text[i] == '\n') {
						m.line++;
						m.column = (size_t)-1;
					}
				rc = mark_err(name, &m, "YAML syntax error: %s", msg);
			} else {
				rc = mark_err(name, ps.problem ? &ps.problem_mark : &ps.mark,
				              "YAML syntax error: %s", msg);
			}
			break;
		}
		line = (unsigned)ev.start_mark.line + 1;
		col = (unsigned)ev.start_mark.column + 1;
		switch (ev.type) {
		case YAML_STREAM_END_EVENT:
			done = true;
			break;
		case YAML_DOCUMENT_START_EVENT:
			if (++docs > 1)
				rc = mark_err(name, &ev.start_mark, "%s", "a job file holds one YAML document only");
			break;
		case YAML_ALIAS_EVENT:
			rc = mark_err(name, &ev.start_mark, "aliases (*%s) are not allowed in a job file",
			              (const char *)ev.data.alias.anchor);
			break;
		case YAML_SCALAR_EVENT:
			anchor = (const char *)ev.data.scalar.anchor;
			tag = (const char *)ev.data.scalar.tag;
			if (anchor || tag)
				break;
			n = ynode_new(Y_SCALAR, line, col);
			if (!n || !(n->text = fk_strndup((const char *)ev.data.scalar.value, ev.data.scalar.length))) {
				ynode_free(n);
				rc = nomem();
				break;
			}
			n->len = ev.data.scalar.length;
			n->plain = ev.data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
			rc = attach(name, sp ? stack[sp - 1] : NULL, n, &doc);
			if (rc < 0)
				ynode_free(n);
			break;
		case YAML_SEQUENCE_START_EVENT:
		case YAML_MAPPING_START_EVENT:
			if (ev.type == YAML_SEQUENCE_START_EVENT) {
				anchor = (const char *)ev.data.sequence_start.anchor;
				tag = (const char *)ev.data.sequence_start.tag;
			} else {
				anchor = (const char *)ev.data.mapping_start.anchor;
				tag = (const char *)ev.data.mapping_start.tag;
			}
			if (anchor || tag)
				break;
			if (sp == FK_JOB_DEPTH_MAX) {
				char d[16];
				snprintf(d, sizeof d, "%d", FK_JOB_DEPTH_MAX);
				rc = mark_err(name, &ev.start_mark, "nesting deeper than %s levels", d);
				break;
			}
			n = ynode_new(ev.type == YAML_SEQUENCE_START_EVENT ? Y_SEQ : Y_MAP, line, col);
			if (!n) {
				rc = nomem();
				break;
			}
			rc = attach(name, sp ? stack[sp - 1] : NULL, n, &doc);
			if (rc < 0)
				ynode_free(n);
			else
				stack[sp++] = n;
			break;
		case YAML_SEQUENCE_END_EVENT:
		case YAML_MAPPING_END_EVENT:
			sp--;
			break;
		default:
			break;
		}
		if (rc == 0 && anchor)
			rc = mark_err(name, &ev.start_mark, "anchors (&%s) are not allowed in a job file", anchor);
		else if (rc == 0 && tag)
			rc = mark_err(name, &ev.start_mark, "YAML tags (%s) are not allowed in a job file", tag);
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&ps);
	if (rc < 0) {
		ynode_free(doc);
		return rc;
	}
	*out = doc;
	return 0;
}

int fk_job_parse_text(const char *name, const char *text, size_t len)
{
	struct ynode *doc;
	int rc = yaml_read(name, (const unsigned char *)text, len, &doc);
	ynode_free(doc);
	return rc;
}

/* ---- helpers for the schema walk --------------------------------------------- */

/* Room for item n of an array of `size`-byte items that grows by doubling:
 * the capacity is n rounded up to a power of two, so it needs no field of
 * its own, and 100,000 inputs cost 17 reallocations, not 100,000. */
static int grow1(void *vp, size_t n, size_t size)
{
	void **v = vp, *nv;

	if (n & (n - 1))
		return 0; /* not a power of two: there is room */
	nv = fk_realloc(*v, (n ? 2 * n : 1) * size);
	if (!nv)
		return -1;
	*v = nv;
	return 0;
}

static char *keep(struct fk_job *j, char *s)
{
	if (!s)
		return NULL;
	if (grow1(&j->own, j->nown, sizeof *j->own) < 0) {
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
	return yerr(j, n, "%s must be %s, not %s", what, names[type], found(n));
}

static bool is_null(const struct ynode *n)
{
	return n->type == Y_SCALAR && n->plain &&
	       (n->len == 0 || strcmp(n->text, "~") == 0 || strcmp(n->text, "null") == 0);
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

/* Apply an `options` mapping to a plugin's options struct. */
static int set_options(struct fk_job *j, const struct fk_plugin *pl, void *opts, const struct ynode *m,
                       const char *script_base)
{
	int rc;

	if ((rc = want(j, m, Y_MAP, "options")) < 0)
		return rc;
	for (size_t i = 0; i + 1 < m->n; i += 2) {
		const struct ynode *k = m->v[i], *v = m->v[i + 1];
		const struct fk_option *o = fk_option_find(pl, k->text);
		const char *value;
		char err[1024];

		if (!o) {
			fk_option_set(pl, opts, k->text, "", err, sizeof err);
			return yerr(j, k, "%s", err);
		}
		if (v->type != Y_SCALAR)
			return yerr(j, v, "option '%s' takes a single value, not %s", k->text, found(v));
		value = v->text;
		if (is_null(v) && o->type == FK_OPT_FLAG)
			value = NULL; /* "flag:" alone means on */
		if (script_base && strcmp(k->text, "script") == 0) {
			if (!(value = resolve(j, script_base, v->text)))
				return nomem();
		}
		rc = fk_option_set(pl, opts, k->text, value, err, sizeof err);
		if (rc < 0)
			return rc == FK_ERR_NOMEM ? nomem() : yerr(j, v, "%s", err);
	}
	return 0;
}

/* ---- inputs --------------------------------------------------------------------- */

static int add_input(struct fk_job *j, const char *path, int series, const char *where)
{
	struct fk_input_spec *v;

	if (grow1(&j->inputs, j->ninputs, sizeof *j->inputs) < 0)
		return nomem();
	v = j->inputs;
	memset(&v[j->ninputs], 0, sizeof *v);
	v[j->ninputs].path = path;
	v[j->ninputs].series = series;
	v[j->ninputs].where = where;
	j->ninputs++;
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

static int any_input_option(const struct fk_registry *r, const char *name)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->v[i]->d.h.kind == FK_PLUGIN_INPUT && fk_option_find(r->v[i], name))
			return 1;
	return 0;
}

static int parse_input(struct fk_job *j, const struct ynode *n)
{
	static const char *const keys[] = { "path", "format", "series", "options", NULL };
	const struct ynode *path = n, *fmt = NULL, *ser = NULL, *opt = NULL;
	struct in_entry *e;
	size_t first = j->ninputs;
	int series = 0, rc;

	if (grow1(&j->ent, j->nent, sizeof *j->ent) < 0)
		return nomem();
	e = &j->ent[j->nent++];
	memset(e, 0, sizeof *e);
	if (n->type == Y_MAP) {
		if ((rc = check_keys(j, n, "an input", keys)) < 0)
			return rc;
		path = map_get(n, "path");
		fmt = map_get(n, "format");
		ser = map_get(n, "series");
		opt = map_get(n, "options");
		if (!path)
			return yerr(j, n, "an input needs a path");
	} else if (n->type != Y_SCALAR) {
		return yerr(j, n, "an input must be a path or a mapping, not %s", found(n));
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
			            found(ser));
	}
	if (fmt) {
		if ((rc = want(j, fmt, Y_SCALAR, "format")) < 0)
			return rc;
		if (strcmp(fmt->text, "auto") != 0 && (rc = find_plugin(j, fmt, FK_PLUGIN_INPUT, &e->pl)) < 0)
			return rc;
	}
	if (opt && !is_null(opt)) {
		if (e->pl) {
			if ((rc = fk_options_new(e->pl, &e->opts)) < 0)
				return nomem();
			if ((rc = set_options(j, e->pl, e->opts, opt, NULL)) < 0)
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
				if (!any_input_option(j->reg, key->text))
					return yerr(j, key, "no input plugin has an option '%s' (see flamekit plugins "
					            "--help NAME)", key->text);
				if (v->type != Y_SCALAR)
					return yerr(j, v, "option '%s' takes a single value, not %s", key->text, found(v));
				e->names[e->nopts] = key->text;
				e->values[e->nopts++] = is_null(v) ? NULL : v->text;
			}
		}
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
	}
	return 0;
}

/* ---- filters ---------------------------------------------------------------------- */

static int lua_string(struct fk_buf *b, const char *s, size_t n)
{
	if (fk_buf_append(b, "\"", 1) < 0)
		return FK_ERR_NOMEM;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		int rc;
		if (c == '"' || c == '\\')
			rc = fk_buf_printf(b, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			rc = fk_buf_printf(b, "\\%03u", c);
		else
			rc = fk_buf_append(b, s + i, 1);
		if (rc < 0)
			return FK_ERR_NOMEM;
	}
	return fk_buf_append(b, "\"", 1);
}

static bool is_number(const char *s)
{
	const char *p = s;
	if (*p == '-' || *p == '+')
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
	return *p == '\0' && s[0] != '+';
}

/* YAML value -> Lua constructor text, for the lua filter's `args`. */
static int lua_value(struct fk_buf *b, const struct ynode *n)
{
	int rc = 0;

	if (n->type == Y_SCALAR) {
		if (n->plain && is_null(n))
			return fk_buf_printf(b, "nil");
		if (n->plain && (is_number(n->text) || strcmp(n->text, "true") == 0 ||
		                 strcmp(n->text, "false") == 0))
			return fk_buf_printf(b, "%s", n->text);
		return lua_string(b, n->text, n->len);
	}
	if (fk_buf_append(b, "{", 1) < 0)
		return FK_ERR_NOMEM;
	for (size_t i = 0; i < n->n && rc == 0; i += n->type == Y_MAP ? 2 : 1) {
		if (n->type == Y_MAP) {
			rc = fk_buf_append(b, "[", 1);
			if (rc == 0)
				rc = lua_string(b, n->v[i]->text, n->v[i]->len);
			if (rc == 0)
				rc = fk_buf_append(b, "]=", 2);
			if (rc == 0)
				rc = lua_value(b, n->v[i + 1]);
		} else {
			rc = lua_value(b, n->v[i]);
		}
		if (rc == 0)
			rc = fk_buf_append(b, ",", 1);
	}
	if (rc == 0)
		rc = fk_buf_append(b, "}", 1);
	return rc;
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

static int parse_filter(struct fk_job *j, const struct ynode *n)
{
	static const char *const keys[] = { "plugin", "options", NULL };
	static const char *const lua_keys[] = { "plugin", "options", "script", "args", NULL };
	const struct ynode *pn, *opt, *script, *args;
	struct filt *f;
	int rc;

	if ((rc = want(j, n, Y_MAP, "a filter")) < 0)
		return rc;
	if (!(pn = map_get(n, "plugin")))
		return yerr(j, n, "a filter needs a plugin (e.g. plugin: lua)");
	f = fk_realloc(j->filters, (j->nfilters + 1) * sizeof *f);
	if (!f)
		return nomem();
	j->filters = f;
	f = &j->filters[j->nfilters++];
	memset(f, 0, sizeof *f);
	if ((rc = find_plugin(j, pn, FK_PLUGIN_FILTER, &f->pl)) < 0)
		return rc;
	if ((rc = check_keys(j, n, "a filter", fk_option_find(f->pl, "script") ? lua_keys : keys)) < 0)
		return rc;
	if (!(f->where = where_of(j, n)))
		return nomem();
	if (fk_options_new(f->pl, &f->opts) < 0)
		return nomem();
	opt = map_get(n, "options");
	if (opt && !is_null(opt) && (rc = set_options(j, f->pl, f->opts, opt, j->dir)) < 0)
		return rc;
	script = map_get(n, "script");
	if (script) {
		char err[512];
		const char *p;
		if ((rc = want(j, script, Y_SCALAR, "script")) < 0)
			return rc;
		if (!(p = resolve(j, j->dir, script->text)))
			return nomem();
		rc = fk_option_set(f->pl, f->opts, "script", p, err, sizeof err);
		if (rc < 0)
			return rc == FK_ERR_NOMEM ? nomem() : yerr(j, script, "%s", err);
	}
	args = map_get(n, "args");
	if (args && !is_null(args)) {
		struct fk_buf b = { 0 };
		char err[512];
		if (args->type == Y_SEQ)
			return yerr(j, args, "args must be a mapping (or Lua table text), not a list");
		rc = args->type == Y_SCALAR ? fk_buf_printf(&b, "%s", args->text) : lua_value(&b, args);
		if (rc < 0 || fk_buf_append(&b, "", 1) < 0) {
			fk_buf_free(&b);
			return nomem();
		}
		rc = fk_option_set(f->pl, f->opts, "args", b.data, err, sizeof err);
		fk_buf_free(&b);
		if (rc < 0)
			return rc == FK_ERR_NOMEM ? nomem() : yerr(j, args, "%s", err);
	}
	if (fk_option_find(f->pl, "script")) {
		const char *s = *(const char **)((char *)f->opts + fk_option_find(f->pl, "script")->offset);
		const struct ynode *at = script ? script : opt && map_get(opt, "script") ? map_get(opt, "script") : n;
		if (!s)
			return yerr(j, n, "the %s filter needs a script (script: FILE.lua)", f->pl->d.h.name);
		if (access(s, R_OK) < 0)
			return yerr(j, at, "cannot read \"%s\": %s", s, strerror(errno));
	}
	return 0;
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
		return yerr(j, n, "an output needs a plugin (e.g. plugin: svg)");
	if (!(path = map_get(n, "path")))
		return yerr(j, n, "an output needs a path (\"-\" for stdout)");
	o = fk_realloc(j->outputs, (j->noutputs + 1) * sizeof *o);
	if (!o)
		return nomem();
	j->outputs = o;
	o = &j->outputs[j->noutputs++];
	memset(o, 0, sizeof *o);
	if ((rc = find_plugin(j, pn, FK_PLUGIN_OUTPUT, &o->plugin)) < 0)
		return rc;
	if (fk_options_new(o->plugin, &o->opts) < 0)
		return nomem();
	opt = map_get(n, "options");
	if (opt && !is_null(opt) && (rc = set_options(j, o->plugin, o->opts, opt, NULL)) < 0)
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
	{
		/* By inode, not by name: "./job.yaml", "../dir/job.yaml" and a
		 * link are all the job file. */
		struct stat st;
		if (strcmp(p, "-") != 0 && j->ino && stat(p, &st) == 0 && st.st_dev == j->dev &&
		    st.st_ino == j->ino)
			return yerr(j, path, "the output \"%s\" would overwrite this job file", p);
	}
	return 0;
}

/* ---- --set ------------------------------------------------------------------------- */

static bool is_index(const char *s, size_t n)
{
	if (n == 0 || n > 9)
		return false;
	for (size_t i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return true;
}

static struct ynode *set_node(int type, const char *origin, const char *text, size_t len)
{
	struct ynode *n = ynode_new(type, 0, 0);
	if (!n)
		return NULL;
	n->origin = origin;
	if (type == Y_SCALAR) {
		n->plain = true;
		n->len = len;
		if (!(n->text = fk_strndup(text, len))) {
			fk_free(n);
			return NULL;
		}
	}
	return n;
}

static int apply_set(struct fk_job *j, const char *set)
{
	const char *eq = strchr(set, '='), *k, *value;
	char *origin;
	struct ynode *cur;

	if (!eq || eq == set) {
		fk_log(FK_LOG_ERROR, "--set %s: give KEY=VALUE, e.g. outputs.0.options.title=Foo", set);
		return FK_ERR_USAGE;
	}
	{
		/* The file's tree stops at FK_JOB_DEPTH_MAX levels; so does a key,
		 * or a long dotted key would nest deeper than anything the
		 * recursive walks (freeing, args) were meant to see. */
		size_t depth = 1;
		for (k = set; k < eq; k++)
			depth += *k == '.';
		if (depth > FK_JOB_DEPTH_MAX) {
			fk_log(FK_LOG_ERROR, "--set %.40s...: the key has %zu components, more than %d",
			       set, depth, FK_JOB_DEPTH_MAX);
			return FK_ERR_USAGE;
		}
	}
	origin = fk_malloc((size_t)(eq - set) + 8);
	if (!origin || !keep(j, origin))
		return nomem();
	sprintf(origin, "--set %.*s", (int)(eq - set), set);
	value = eq + 1;
	/* An empty job (no document, or a lone "~") takes --set keys as a
	 * mapping would. */
	if (j->root && is_null(j->root)) {
		ynode_free(j->root);
		j->root = NULL;
	}
	if (!j->root && !(j->root = set_node(Y_MAP, origin, NULL, 0)))
		return nomem();
	cur = j->root;
	for (k = set; k < eq;) {
		const char *dot = memchr(k, '.', (size_t)(eq - k));
		size_t n = dot ? (size_t)(dot - k) : (size_t)(eq - k);
		bool last = !dot;
		struct ynode **slot = NULL, *nn;

		if (n == 0) {
			fk_log(FK_LOG_ERROR, "%s: empty key component", origin);
			return FK_ERR_USAGE;
		}
		if (cur->type == Y_MAP) {
			for (size_t i = 0; i + 1 < cur->n; i += 2)
				if (cur->v[i]->len == n && memcmp(cur->v[i]->text, k, n) == 0)
					slot = &cur->v[i + 1];
			if (!slot) {
				struct ynode *key = set_node(Y_SCALAR, origin, k, n);
				if (!key || ynode_push(cur, key) < 0 || ynode_push(cur, NULL) < 0) {
					if (key && (cur->n == 0 || cur->v[cur->n - 1] != key))
						ynode_free(key);
					return nomem();
				}
				slot = &cur->v[cur->n - 1];
			}
		} else if (cur->type == Y_SEQ) {
			size_t idx;
			if (!is_index(k, n)) {
				if (k == set)
					fk_log(FK_LOG_ERROR, "%s: the job is a list, not a mapping", origin);
				else
					fk_log(FK_LOG_ERROR, "%s: '%.*s' is a list, indexed by numbers from 0, not '%.*s'",
					       origin, (int)(k - set - 1), set, (int)n, k);
				return FK_ERR_USAGE;
			}
			idx = (size_t)strtoul(k, NULL, 10);
			if (idx > cur->n) {
				fk_log(FK_LOG_ERROR, "%s: index %zu is past the end of '%.*s' (it has %zu items)",
				       origin, idx, (int)(k - set - 1), set, cur->n);
				return FK_ERR_USAGE;
			}
			if (idx == cur->n && ynode_push(cur, NULL) < 0)
				return nomem();
			slot = &cur->v[idx];
		} else if (k == set) {
			fk_log(FK_LOG_ERROR, "%s: the job is a single value, not a mapping", origin);
			return FK_ERR_USAGE;
		} else {
			fk_log(FK_LOG_ERROR, "%s: '%.*s' is a single value, it has no '%.*s'", origin,
			       (int)(k - set - 1), set, (int)n, k);
			return FK_ERR_USAGE;
		}
		if (last) {
			nn = set_node(Y_SCALAR, origin, value, strlen(value));
			if (!nn)
				return nomem();
			ynode_free(*slot);
			*slot = nn;
			break;
		}
		if (!*slot) {
			const char *next = dot + 1;
			const char *nd = memchr(next, '.', (size_t)(eq - next));
			size_t nl = nd ? (size_t)(nd - next) : (size_t)(eq - next);
			if (!(*slot = set_node(is_index(next, nl) ? Y_SEQ : Y_MAP, origin, NULL, 0)))
				return nomem();
		}
		cur = *slot;
		k = dot + 1;
	}
	return 0;
}

/* ---- the job ------------------------------------------------------------------------ */

void fk_job_free(struct fk_job *j)
{
	if (!j)
		return;
	ynode_free(j->root);
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

static int read_all(const char *path, char **data, size_t *len)
{
	FILE *f = fopen(path, "rb");
	struct fk_buf b = { 0 };
	char chunk[65536];
	struct stat st;
	size_t r;

	if (!f) {
		fk_log(FK_LOG_ERROR, "%s: cannot open: %s", path, strerror(errno));
		return FK_ERR_IO;
	}
	/* fopen accepts a directory and fread then fails with a bare EISDIR;
	 * say what is wrong instead. */
	if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
		fclose(f);
		fk_log(FK_LOG_ERROR, "%s: is a directory, not a job file", path);
		return FK_ERR_IO;
	}
	/* A cap, so that /dev/zero or a runaway pipe fails instead of eating
	 * all memory; real job files are a few hundred bytes. */
	while ((r = fread(chunk, 1, sizeof chunk, f)) > 0) {
		if (b.len + r > FK_JOB_SIZE_MAX) {
			fclose(f);
			fk_buf_free(&b);
			fk_log(FK_LOG_ERROR, "%s: larger than %d MiB, too large for a job file", path,
			       FK_JOB_SIZE_MAX >> 20);
			return FK_ERR_USAGE;
		}
		if (fk_buf_append(&b, chunk, r) < 0) {
			fclose(f);
			fk_buf_free(&b);
			return nomem();
		}
	}
	if (ferror(f)) {
		fk_log(FK_LOG_ERROR, "%s: read error: %s", path, strerror(errno));
		fclose(f);
		fk_buf_free(&b);
		return FK_ERR_IO;
	}
	fclose(f);
	*data = b.data;
	*len = b.len;
	return 0;
}

static int walk(struct fk_job *j)
{
	static const char *const keys[] = { "inputs", "filters", "outputs", "output-dir", "threads", NULL };
	const struct ynode *r = j->root, *in, *fl, *out, *od, *th;
	int rc;

	if (!r || is_null(r))
		return yerr(j, NULL, "the job is empty (it needs inputs and outputs)");
	if ((rc = want(j, r, Y_MAP, "a job")) < 0 || (rc = check_keys(j, r, "a job", keys)) < 0)
		return rc;
	in = map_get(r, "inputs");
	fl = map_get(r, "filters");
	out = map_get(r, "outputs");
	od = map_get(r, "output-dir");
	th = map_get(r, "threads");
	if (!in)
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
			return yerr(j, th, "threads must be a number from 1 to 256, not %s", found(th));
		j->threads = (unsigned)t;
	}
	j->outdir = j->dir;
	if (od) {
		if ((rc = want(j, od, Y_SCALAR, "output-dir")) < 0)
			return rc;
		if (!(j->outdir = resolve(j, j->dir, od->text)))
			return nomem();
	}
	if ((rc = want(j, in, Y_SEQ, "inputs")) < 0)
		return rc;
	if (in->n == 0)
		return yerr(j, in, "the input list is empty");
	for (size_t i = 0; i < in->n; i++)
		if ((rc = parse_input(j, in->v[i])) < 0)
			return rc;
	if (fl && !is_null(fl)) {
		if ((rc = want(j, fl, Y_SEQ, "filters")) < 0)
			return rc;
		for (size_t i = 0; i < fl->n; i++)
			if ((rc = parse_filter(j, fl->v[i])) < 0)
				return rc;
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
	if ((rc = read_all(path, &text, &len)) < 0)
		goto fail;
	{
		struct stat st;
		if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
			j->dev = st.st_dev;
			j->ino = st.st_ino;
		}
	}
	rc = yaml_read(path, (const unsigned char *)(text ? text : ""), len, &j->root);
	fk_free(text);
	if (rc < 0)
		goto fail;
	for (size_t i = 0; i < nsets; i++)
		if ((rc = apply_set(j, sets[i])) < 0)
			goto fail;
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
static void free_chain(struct fk_job *j, struct fk_filter_chain *fc)
{
	for (size_t i = 0; i < fc->n; i++) {
		j->filters[i].opts = fc->v[i].opts;
		fc->v[i].opts = NULL;
	}
	fk_filter_chain_free(fc);
}

static int make_chain(struct fk_job *j, struct fk_filter_chain *fc)
{
	memset(fc, 0, sizeof *fc);
	for (size_t i = 0; i < j->nfilters; i++) {
		struct filt *f = &j->filters[i];
		int rc = fk_filter_chain_add(fc, f->pl, f->opts, f->where);
		if (rc < 0) {
			free_chain(j, fc);
			return rc;
		}
		f->opts = NULL; /* the chain holds them until free_chain */
	}
	return 0;
}

int fk_job_check(struct fk_job *j)
{
	struct fk_filter_chain fc;
	int rc = make_chain(j, &fc);
	if (rc == 0)
		free_chain(j, &fc);
	return rc;
}

int fk_job_run(struct fk_job *j, unsigned threads, unsigned fallback, int progress)
{
	struct fk_pipeline pl;
	int rc;

	memset(&pl, 0, sizeof pl);
	if ((rc = make_chain(j, &pl.filters)) < 0)
		return rc;
	pl.reg = j->reg;
	pl.inputs = j->inputs;
	pl.ninputs = j->ninputs;
	pl.outputs = j->outputs;
	pl.noutputs = j->noutputs;
	pl.threads = threads ? threads : j->threads ? j->threads : fallback ? fallback : 1;
	pl.progress = progress;
	rc = fk_pipeline_run(&pl);
	free_chain(j, &pl.filters);
	return rc;
}
