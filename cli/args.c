/* Argument handling shared by the subcommands. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	fprintf(stderr, "%s: %s%s%s\nTry '%s help%s%s' for more information.\n", fk_progname,
	        cmd ? cmd : "", cmd ? ": " : "", msg, fk_progname, cmd ? " " : "", cmd ? cmd : "");
	return EXIT_USAGE;
}

int cli_exit(int status)
{
	if (status == 0)
		return EXIT_OK;
	if (status == FK_ERR_USAGE)
		return EXIT_USAGE;
	return EXIT_DATA;
}

unsigned cli_threads(const struct cli *c)
{
	long n;

	if (c->threads)
		return c->threads;
	n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (unsigned)(n > 64 ? 64 : n) : 1;
}

/* --shard K/N into c. */
static int shard_opt(struct cli *c, const char *v)
{
	char *end;
	unsigned long k, n;

	k = strtoul(v, &end, 10);
	if (end == v || *end != '/' || v[0] == '-' || end[1] == '-')
		goto bad;
	n = strtoul(end + 1, &end, 10);
	if (*end || n < 1 || n > 1000000 || k >= n)
		goto bad;
	c->shard_k = (unsigned)k;
	c->shard_n = (unsigned)n;
	return 0;
bad:
	cli_usage_error(NULL, "--shard takes K/N (shard K of N, K from 0 to N-1), not \"%s\"", v);
	return FK_ERR_USAGE;
}

/* The common options act on c as they are met; the rest is kept in a. */
static int apply(struct cli *c, const struct cli_opt *o, const char *v, struct cli_args *a)
{
	char *end;
	long n;

	a->v[o->id] = v;
	a->given[o->id] = true;
	switch (o->id) {
	case OPT_QUIET:
		fk_log_set_verbosity(FK_LOG_ERROR);
		break;
	case OPT_VERBOSE:
		fk_log_set_verbosity(fk_log_verbosity() < FK_LOG_INFO ? FK_LOG_INFO : FK_LOG_DEBUG);
		break;
	case OPT_PROGRESS:
		c->progress = 2;
		break;
	case OPT_NO_PROGRESS:
		c->progress = 0;
		break;
	case OPT_PLUGIN_DIR:
		/* cli_canon registered it before loading */
		if (!c->loaded && fk_registry_add_dir(&c->reg, v) < 0)
			goto nomem;
		break;
	case OPT_SHARD:
		return shard_opt(c, v);
	case OPT_THREADS:
		n = strtol(v, &end, 10);
		if (*end || n < 1 || n > 256) {
			cli_usage_error(NULL, "--threads takes a number from 1 to 256, not \"%s\"", v);
			return FK_ERR_USAGE;
		}
		c->threads = (unsigned)n;
		break;
	case OPT_SET:
		a->sets[a->nsets++] = v;
		break;
	case OPT_NARROW:
		a->nnames[a->nnarrow] = o->name;
		a->nvalues[a->nnarrow++] = v;
		break;
	default:
		break;
	}
	return 0;
nomem:
	fk_log(FK_LOG_ERROR, "out of memory");
	return FK_ERR_NOMEM;
}

/* Option o given as argv[*i] (its name's value after '=' in eq, or NULL). */
static int take(struct cli *c, const char *cmd, const struct cli_opt *o, int argc, char **argv,
                int *i, const char *eq, struct cli_args *a)
{
	const char *v = eq;

	switch (o->arg) {
	case ARG_NONE:
		if (eq && (strcmp(eq, "false") == 0 || strcmp(eq, "0") == 0)) {
			a->v[o->id] = NULL;
			a->given[o->id] = false;
			return 0;
		}
		if (eq && strcmp(eq, "true") != 0 && strcmp(eq, "1") != 0) {
			cli_usage_error(o->cmds == CMD_ALL ? NULL : cmd, "--%s takes no value", o->name);
			return FK_ERR_USAGE;
		}
		v = "1";
		break;
	case ARG_REQUIRED:
		if (!v && *i + 1 >= argc) {
			cli_usage_error(o->cmds == CMD_ALL ? NULL : cmd, "%.*s needs %s",
			                (int)strcspn(argv[*i], "="), argv[*i], o->need);
			return FK_ERR_USAGE;
		}
		if (!v)
			v = argv[++*i];
		break;
	case ARG_NUMBER:
		if (!v)
			v = argv[++*i]; /* option() saw the number */
		if (!*v || strspn(v, "0123456789") != strlen(v)) {
			cli_usage_error(cmd, "--%s takes %s, not \"%s\"", o->name, o->need, v);
			return FK_ERR_USAGE;
		}
		break;
	default: /* ARG_OPTIONAL: only after '=' */
		break;
	}
	return apply(c, o, v, a);
}

/* -ns: one-letter flags together, as getopt takes them.  1 taken, 0 not. */
static int bundle(struct cli *c, unsigned bit, const char *s, struct cli_args *a)
{
	int rc;

	for (const char *p = s; *p; p++) {
		const struct cli_opt *o = cli_opt_find(bit, p, 1, true);
		if (!o || o->arg != ARG_NONE)
			return 0;
	}
	for (const char *p = s; *p; p++)
		if ((rc = apply(c, cli_opt_find(bit, p, 1, true), "1", a)) < 0)
			return rc;
	return 1;
}

static int unknown(struct cli *c, const char *cmd, const char *arg, const char *hint)
{
	struct fk_buf b = { 0 };
	const char *s = arg + 1 + (arg[1] == '-');
	int rc = cli_did_you_mean(s, c->names, c->nnames, &b);

	if (rc < 0) {
		fk_log(FK_LOG_ERROR, "out of memory");
	} else {
		cli_usage_error(cmd, "unknown option '%s'%s%s%s%s", arg, hint ? hint : "",
		                b.len ? "\nDid you mean" : "", b.len ? b.data : "", b.len ? "?" : "");
		rc = FK_ERR_USAGE;
	}
	fk_buf_free(&b);
	return rc;
}

/* One argument that looks like an option: the table's, other's, or none. */
static int option(struct cli *c, const char *cmd, unsigned bit, int argc, char **argv, int *i,
                  cli_other_opt other, void *ctx, const char *hint, struct cli_args *a)
{
	const char *arg = argv[*i], *name = arg + 1 + (arg[1] == '-'), *eq = strchr(name, '=');
	size_t len = eq ? (size_t)(eq - name) : strlen(name);
	bool shortopt = arg[1] != '-';
	const struct cli_opt *o = cli_opt_find(bit, name, len, shortopt);
	int r;

	/* --pid without a number is the input plugin's flag */
	if (o && o->arg == ARG_NUMBER && !eq &&
	    (*i + 1 >= argc || !argv[*i + 1][0] ||
	     strspn(argv[*i + 1], "0123456789") != strlen(argv[*i + 1]))) {
		if (other && (r = other(ctx, argc, argv, i)) != 0)
			return r < 0 ? r : 0;
		cli_usage_error(cmd, "--%s needs %s", o->name, o->need);
		return FK_ERR_USAGE;
	}
	if (o)
		return take(c, cmd, o, argc, argv, i, eq ? eq + 1 : NULL, a);
	if (shortopt && !eq && (r = bundle(c, bit, name, a)) != 0)
		return r < 0 ? r : 0;
	if (other && (r = other(ctx, argc, argv, i)) != 0)
		return r < 0 ? r : 0;
	return unknown(c, cmd, arg, hint);
}

int cli_parse(struct cli *c, const char *cmd, int argc, char **argv, cli_other_opt other,
              void *ctx, const char *hint, struct cli_args *a)
{
	unsigned bit = cli_cmd_bit(cmd);
	int rc;

	memset(a, 0, sizeof *a);
	for (const struct cli_opt *o = cli_options; o->cmds; o++)
		if ((o->cmds & bit) && o->name && !a->v[o->id])
			a->v[o->id] = o->def;
	a->files = fk_calloc((size_t)argc + 1, sizeof *a->files);
	a->sets = fk_calloc((size_t)argc + 1, sizeof *a->sets);
	a->nnames = fk_calloc((size_t)argc + 1, sizeof *a->nnames);
	a->nvalues = fk_calloc((size_t)argc + 1, sizeof *a->nvalues);
	if (!a->files || !a->sets || !a->nnames || !a->nvalues) {
		fk_log(FK_LOG_ERROR, "out of memory");
		return FK_ERR_NOMEM;
	}
	for (int i = 1; i < argc; i++) {
		const char *s = argv[i];
		if (strcmp(s, "--") == 0) {
			while (++i < argc)
				a->files[a->nfiles++] = argv[i];
			break;
		}
		/* a file, or "-" (stdin) */
		if (s[0] != '-' || s[1] == '\0') {
			a->files[a->nfiles++] = s;
			continue;
		}
		if ((rc = option(c, cmd, bit, argc, argv, &i, other, ctx, hint, a)) < 0)
			return rc;
	}
	return 0;
}

void cli_args_free(struct cli_args *a)
{
	fk_free(a->files);
	fk_free(a->sets);
	fk_free(a->nnames);
	fk_free(a->nvalues);
	memset(a, 0, sizeof *a);
}

int cli_load(struct cli *c)
{
	int rc;

	if (c->loaded)
		return c->load_rc;
	rc = fk_registry_load_all(&c->reg);
	c->loaded = true;
	c->load_rc = rc;
	if (rc == FK_ERR_NOMEM)
		fk_log(FK_LOG_ERROR, "out of memory loading plugins");
	return rc;
}

const struct fk_plugin *cli_find(struct cli *c, int kind, const char *name, const char *cmd)
{
	const struct fk_plugin *pl = fk_registry_find(&c->reg, kind, name);

	if (!pl) {
		struct fk_buf names = { 0 };
		for (size_t i = 0; i < c->reg.n; i++)
			if ((int)c->reg.v[i]->d.h.kind == kind)
				fk_buf_printf(&names, "%s%s", names.len ? ", " : "", c->reg.v[i]->d.h.name);
		cli_usage_error(cmd, "no %s plugin named \"%s\" (available: %s)", fk_kind_name(kind),
		                name, names.data ? names.data : "none; is FLAMEKIT_PLUGIN_PATH right?");
		fk_buf_free(&names);
	}
	return pl;
}

int cli_plugin_opt(const struct fk_plugin *pl, void *opts, int argc, char **argv, int *i)
{
	const char *a = argv[*i], *eq, *value = NULL;
	char name[128], err[512];
	const struct fk_option *o;
	size_t n;

	if (!pl || strncmp(a, "--", 2) != 0)
		return 0;
	a += 2;
	eq = strchr(a, '=');
	n = eq ? (size_t)(eq - a) : strlen(a);
	if (n == 0 || n >= sizeof name)
		return 0;
	memcpy(name, a, n);
	name[n] = '\0';
	o = fk_option_find(pl, name);
	if (!o)
		return 0;
	if (eq)
		value = eq + 1;
	else if (o->type != FK_OPT_FLAG) {
		if (*i + 1 >= argc) {
			cli_usage_error(NULL, "--%s needs a value", name);
			return FK_ERR_USAGE;
		}
		value = argv[++*i];
	}
	switch (fk_option_set(pl, opts, name, value, err, sizeof err)) {
	case 0:
		return 1;
	case FK_ERR_NOMEM:
		fk_log(FK_LOG_ERROR, "out of memory");
		return FK_ERR_NOMEM;
	default:
		cli_usage_error(NULL, "%s", err);
		return FK_ERR_USAGE;
	}
}

int cli_pending_add(struct pending *pd, const char *name, const char *value)
{
	const char **a = fk_realloc(pd->names, (pd->n + 1) * sizeof *a);
	const char **b;
	if (!a)
		return FK_ERR_NOMEM;
	pd->names = a;
	b = fk_realloc(pd->values, (pd->n + 1) * sizeof *b);
	if (!b)
		return FK_ERR_NOMEM;
	pd->values = b;
	a[pd->n] = name;
	b[pd->n] = value;
	pd->n++;
	return 0;
}

/* Any input plugin's declaration of option `name`, to know if it takes a value. */
const struct fk_option *cli_any_input_option(const struct fk_registry *r, const char *name)
{
	for (size_t i = 0; i < r->n; i++) {
		if (r->v[i]->d.h.kind != FK_PLUGIN_INPUT)
			continue;
		const struct fk_option *o = fk_option_find(r->v[i], name);
		if (o)
			return o;
	}
	return NULL;
}
