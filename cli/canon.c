/*
 * Option spellings.  FlameGraph users type what flamegraph.pl's
 * Getopt::Long accepts: unique prefixes (--titl, --color=java) and long
 * options after one dash (-title=x).  Before a command parses its
 * arguments, every option is rewritten in place to its one canonical
 * spelling (--title=x), so the commands only ever compare whole names.
 * The names a command accepts are the table's (cli/options.c: the common
 * ones, then its own) and those of the plugins it will use; a prefix of two or more of them is a usage
 * error naming them all, as getopt_long's.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

struct names {
	const char **v;
	unsigned char *value; /* v[i] takes a value: 1, or 2 when it is a number */
	unsigned char *whole; /* v[i] is never reached by a prefix (cli_opt.whole):
	                       * 1, or 2 when a plugin's same name does not undo it */
	size_t n, cap;
};

static int add_name(struct names *ns, const char *name, size_t len, int value, int whole)
{
	for (size_t i = 0; i < ns->n; i++)
		if (strlen(ns->v[i]) == len && memcmp(ns->v[i], name, len) == 0) {
			/* two plugins sharing a name: one option, reached by a
			 * prefix when either is (perf's --pid, the table's) */
			if (ns->whole[i] != 2)
				ns->whole[i] = ns->whole[i] && whole;
			return 0;
		}
	if (ns->n == ns->cap) {
		size_t cap = ns->cap ? 2 * ns->cap : 64;
		const char **v = fk_realloc(ns->v, cap * sizeof *v);
		unsigned char *val;
		if (!v)
			return FK_ERR_NOMEM;
		ns->v = v;
		if (!(val = fk_realloc(ns->value, cap)))
			return FK_ERR_NOMEM;
		ns->value = val;
		if (!(val = fk_realloc(ns->whole, cap)))
			return FK_ERR_NOMEM;
		ns->whole = val;
		ns->cap = cap;
	}
	if (!(ns->v[ns->n] = fk_strndup(name, len)))
		return FK_ERR_NOMEM;
	ns->whole[ns->n] = (unsigned char)whole;
	ns->value[ns->n++] = (unsigned char)value;
	return 0;
}

/* The names of the table's rows that command bit `cmd` takes (long,
 * then short), in the table's order: the order of the candidates an
 * ambiguous prefix lists. */
static int add_table(struct names *ns, unsigned cmd)
{
	for (const struct cli_opt *o = cli_options; o->cmds; o++) {
		int value = o->arg == ARG_REQUIRED ? 1 : o->arg == ARG_NUMBER ? 2 : 0;
		int whole = o->id == OPT_WHOLE ? 2 : o->whole;
		int rc = 0;
		if (!(o->cmds & cmd) || o->id == OPT_TEXT)
			continue;
		if ((o->name && (rc = add_name(ns, o->name, strlen(o->name), value, whole)) < 0) ||
		    (o->shortopt && (rc = add_name(ns, &o->shortopt, 1, value, whole)) < 0))
			return rc;
	}
	return 0;
}

static int add_plugin(struct names *ns, const struct fk_plugin *pl)
{
	for (const struct fk_option *o = pl->d.h.options; o && o->type != FK_OPT_END; o++) {
		int rc = add_name(ns, o->name, strlen(o->name), o->type != FK_OPT_FLAG, false);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int add_kind(struct names *ns, const struct fk_registry *r, int kind)
{
	for (size_t i = 0; i < r->n; i++) {
		int rc = (int)r->v[i]->d.h.kind == kind ? add_plugin(ns, r->v[i]) : 0;
		if (rc < 0)
			return rc;
	}
	return 0;
}

static void free_names(struct names *ns)
{
	for (size_t i = 0; i < ns->n; i++)
		fk_free((void *)ns->v[i]);
	fk_free(ns->v);
	fk_free(ns->value);
	fk_free(ns->whole);
	memset(ns, 0, sizeof *ns);
}

/* Which name does `s` (len bytes) spell?  Short names (one character) only
 * after one dash, and only whole; long names whole or by a prefix.
 * Returns the index, -1 for none, or -2 for a prefix of several. */
static long lookup(const struct names *ns, const char *s, size_t len, bool short_opt)
{
	long found = -1;

	for (size_t i = 0; i < ns->n; i++) {
		if ((ns->v[i][1] == '\0') != short_opt || strncmp(ns->v[i], s, len) != 0)
			continue;
		if (ns->v[i][len] == '\0')
			return (long)i;
		if (ns->whole[i])
			continue;
		found = found == -1 && !short_opt ? (long)i : -2;
	}
	return found == -2 && short_opt ? -1 : found;
}

/* One argument seen as an option: "--NAME[=V]", "-NAME[=V]" (a long name
 * after one dash, as Getopt::Long takes it) or "-X" (short).  Sets *name,
 * *len, *eq (NULL without '=') and *short_opt; false when arg is no
 * option: a file, "-" (stdin), "--", a negative number. */
static bool split_option(const char *arg, const char **name, size_t *len, const char **eq,
                         bool *short_opt)
{
	if (arg[0] != '-' || arg[1] == '\0')
		return false;
	*name = arg + 1 + (arg[1] == '-');
	*eq = strchr(*name, '=');
	*len = *eq ? (size_t)(*eq - *name) : strlen(*name);
	*short_opt = arg[1] != '-' && *len == 1 && !*eq;
	if (*len == 0 || (arg[1] != '-' && (*name)[0] >= '0' && (*name)[0] <= '9'))
		return false;
	return true;
}

/* Does option k, given as argv[i] (eq: its '=' or NULL), take argv[i + 1]? */
static bool takes_next(const struct names *ns, long k, const char *eq, int argc, char **argv, int i)
{
	if (eq || i + 1 >= argc || !ns->value[k])
		return false;
	return ns->value[k] == 1 || (argv[i + 1][0] && strspn(argv[i + 1], "0123456789") == strlen(argv[i + 1]));
}

static int ambiguous(const char *cmd, const struct names *ns, const char *arg, const char *s,
                     size_t len)
{
	struct fk_buf b = { 0 };
	const char *eq = strchr(arg, '=');

	for (size_t i = 0; i < ns->n; i++)
		if (ns->v[i][1] && !ns->whole[i] && strncmp(ns->v[i], s, len) == 0)
			fk_buf_printf(&b, " --%s", ns->v[i]);
	cli_usage_error(cmd, "option '%.*s' is ambiguous; possibilities:%s",
	                (int)(eq ? (size_t)(eq - arg) : strlen(arg)), arg, b.data ? b.data : "");
	fk_buf_free(&b);
	return FK_ERR_USAGE;
}

static int keep(struct cli *c, char *s)
{
	char **v = s ? fk_realloc(c->owned, (c->nowned + 1) * sizeof *v) : NULL;

	if (!v) {
		fk_free(s);
		fk_log(FK_LOG_ERROR, "out of memory");
		return FK_ERR_NOMEM;
	}
	c->owned = v;
	v[c->nowned++] = s;
	return 0;
}

/* Walk the options of argv[1..argc) as `ns` names them.  With find NULL,
 * rewrite each to its canonical spelling ("--NAME[=V]", kept in c->owned)
 * and report an ambiguous one.  With find, only look: *found is the value
 * of option `find` (its name for a flag), NULL when it is not given. */
static int walk(struct cli *c, const char *cmd, int argc, char **argv, const struct names *ns,
                const char *find, const char **found)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *s, *eq;
		size_t len;
		bool short_opt;
		const struct cli_opt *al;
		long k;
		char *nw;
		int rc;

		if (strcmp(a, "--") == 0)
			break;
		if (!split_option(a, &s, &len, &eq, &short_opt))
			continue;
		k = lookup(ns, s, len, short_opt);
		if (k == -2 && !find)
			return ambiguous(cmd, ns, a, s, len);
		if (k < 0)
			continue; /* unknown: the command says so */
		if (find) {
			if (strcmp(ns->v[k], find) == 0)
				*found = eq ? eq + 1 : !ns->value[k] ? find : i + 1 < argc ? argv[i + 1] : NULL;
		} else if ((al = cli_alias_find(cli_cmd_bit(cmd), ns->v[k], strlen(ns->v[k]),
		                                ns->v[k][1] == '\0')) != NULL ||
		           (!short_opt && (a[1] != '-' || strlen(ns->v[k]) != len))) {
			/* another tool's spelling becomes the one it stands for */
			const char *to = al ? al->alias : ns->v[k];
			nw = fk_malloc(strlen(to) + (eq ? strlen(eq) : 0) + 3);
			if ((rc = keep(c, nw)) < 0)
				return rc;
			sprintf(nw, "--%s%s", to, eq ? eq : "");
			argv[i] = nw;
		}
		if (takes_next(ns, k, eq, argc, argv, i))
			i++; /* its value, whatever it looks like */
	}
	return 0;
}

static const char *peek(struct cli *c, int argc, char **argv, const struct names *ns,
                        const char *name)
{
	const char *v = NULL;

	walk(c, NULL, argc, argv, ns, name, &v);
	return v;
}

/* --plugin-dir must be known before the plugins whose options the rest
 * may name are loaded: register every one given. */
static int plugin_dirs(struct cli *c, int argc, char **argv, const struct names *ns)
{
	const char *dir = NULL;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *s, *eq;
		size_t len;
		bool short_opt;
		long k;

		if (strcmp(a, "--") == 0)
			break;
		if (!split_option(a, &s, &len, &eq, &short_opt) || (k = lookup(ns, s, len, short_opt)) < 0)
			continue;
		if (strcmp(ns->v[k], "plugin-dir") == 0)
			dir = eq ? eq + 1 : i + 1 < argc ? argv[i + 1] : NULL;
		if (dir && fk_registry_add_dir(&c->reg, dir) < 0) {
			fk_log(FK_LOG_ERROR, "out of memory");
			return FK_ERR_NOMEM;
		}
		dir = NULL;
		if (takes_next(ns, k, eq, argc, argv, i))
			i++;
	}
	return 0;
}

/* Add the options of the plugins `cmd` will use: graph's output plugin
 * (--output-plugin, flamechart for --flamechart, else svg) and input
 * plugin, collapse's input plugin; every input plugin for --format auto.
 * Which ones is read from argv against every name they could have. */
static int plugin_names(struct cli *c, const char *cmd, int argc, char **argv, struct names *ns)
{
	struct names all = { 0 };
	const char *format, *out = NULL, *chart = NULL;
	const struct fk_plugin *pl;
	bool graph = strcmp(cmd, "graph") == 0;
	int rc;

	if (!graph && strcmp(cmd, "collapse") != 0)
		return 0;
	for (size_t i = 0; i < ns->n; i++)
		if ((rc = add_name(&all, ns->v[i], strlen(ns->v[i]), ns->value[i], ns->whole[i])) < 0)
			goto out;
	if ((rc = add_kind(&all, &c->reg, FK_PLUGIN_INPUT)) < 0 ||
	    (graph && (rc = add_kind(&all, &c->reg, FK_PLUGIN_OUTPUT)) < 0))
		goto out;
	format = peek(c, argc, argv, &all, "format");
	if (!format)
		format = peek(c, argc, argv, &all, "f");
	c->format = format;
	pl = format && strcmp(format, "auto") != 0 ? fk_registry_find(&c->reg, FK_PLUGIN_INPUT, format) : NULL;
	rc = pl ? add_plugin(ns, pl) : add_kind(ns, &c->reg, FK_PLUGIN_INPUT);
	if (rc < 0 || !graph)
		goto out;
	out = peek(c, argc, argv, &all, "output-plugin");
	chart = peek(c, argc, argv, &all, "flamechart");
	if (chart && (strcmp(chart, "false") == 0 || strcmp(chart, "0") == 0))
		chart = NULL;
	/* graph's one default-output rule: --output-plugin NAME, else
	 * flamechart for --flamechart, else svg */
	c->drawer = out ? out : chart ? "flamechart" : "svg";
	if ((pl = fk_registry_find(&c->reg, FK_PLUGIN_OUTPUT, c->drawer)))
		rc = add_plugin(ns, pl);
out:
	free_names(&all);
	return rc;
}

/* The names every command takes and cmd's own. */
static int command_list(struct names *ns, const char *cmd)
{
	return add_table(ns, cli_cmd_bit(cmd));
}

int cli_plugin_dirs(struct cli *c, const char *cmd, int argc, char **argv)
{
	struct names ns = { 0 };
	int rc;

	if ((rc = command_list(&ns, cmd)) < 0)
		fk_log(FK_LOG_ERROR, "out of memory");
	else
		rc = plugin_dirs(c, argc, argv, &ns);
	free_names(&ns);
	return rc;
}

int cli_canon(struct cli *c, const char *cmd, int argc, char **argv)
{
	struct names ns = { 0 };
	int rc;

	if ((rc = command_list(&ns, cmd)) < 0)
		goto nomem;
	if ((rc = plugin_dirs(c, argc, argv, &ns)) < 0)
		goto out;
	c->load_rc = cli_load(c);
	if ((rc = plugin_names(c, cmd, argc, argv, &ns)) < 0)
		goto nomem;
	if ((rc = walk(c, cmd, argc, argv, &ns, NULL, NULL)) == 0) {
		/* kept for "did you mean" (cli_parse); main frees them */
		c->names = ns.v;
		c->nnames = ns.n;
		ns.v = NULL;
		ns.n = 0;
	}
	goto out;
nomem:
	fk_log(FK_LOG_ERROR, "out of memory");
out:
	free_names(&ns);
	return rc;
}
