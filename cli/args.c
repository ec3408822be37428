/* Argument handling shared by the subcommands. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

const char cli_common_help[] =
	"  --plugin-dir DIR   load plugins from DIR first (repeatable)\n"
	"  --threads N        parsing threads (default: the number of cores)\n"
	"  --shard K/N        read only shard K (0 to N-1) of N byte ranges of each input,\n"
	"                     cut at sample boundaries (plain files; see the README)\n"
	"  --progress         show progress on stderr (default: only when it is a terminal)\n"
	"  --no-progress      never show progress\n"
	"  -q, --quiet        print errors only\n"
	"  -v, --verbose      print more (repeat for debug output)\n";

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

static const char *value_of(int argc, char **argv, int *i, const char *arg, const char *name)
{
	size_t l = strlen(name);
	if (strncmp(arg, name, l) == 0 && arg[l] == '=')
		return arg + l + 1;
	if (strcmp(arg, name) == 0 && *i + 1 < argc)
		return argv[++*i];
	return NULL;
}

int cli_common_opt(struct cli *c, int argc, char **argv, int *i)
{
	const char *a = argv[*i], *v;

	if (strcmp(a, "-q") == 0 || strcmp(a, "--quiet") == 0) {
		fk_verbosity = FK_LOG_ERROR;
		return 1;
	}
	if (strcmp(a, "-v") == 0 || strcmp(a, "--verbose") == 0) {
		fk_verbosity = fk_verbosity < FK_LOG_INFO ? FK_LOG_INFO : FK_LOG_DEBUG;
		return 1;
	}
	if (strcmp(a, "--progress") == 0) {
		c->progress = 2;
		return 1;
	}
	if (strcmp(a, "--no-progress") == 0) {
		c->progress = 0;
		return 1;
	}
	if (strncmp(a, "--plugin-dir", 12) == 0 && (a[12] == '\0' || a[12] == '=')) {
		if (!(v = value_of(argc, argv, i, a, "--plugin-dir")))
			return cli_usage_error(NULL, "--plugin-dir needs a directory"), FK_ERR_USAGE;
		/* cli_canon registered it before loading */
		if (!c->loaded && fk_registry_add_dir(&c->reg, v) < 0) {
			fk_log(FK_LOG_ERROR, "out of memory");
			return FK_ERR_NOMEM;
		}
		return 1;
	}
	if (strncmp(a, "--shard", 7) == 0 && (a[7] == '\0' || a[7] == '=')) {
		char *end;
		unsigned long k, n;
		if (!(v = value_of(argc, argv, i, a, "--shard")))
			return cli_usage_error(NULL, "--shard needs K/N, e.g. --shard 0/4"), FK_ERR_USAGE;
		k = strtoul(v, &end, 10);
		if (end == v || *end != '/' || v[0] == '-' || end[1] == '-')
			return cli_usage_error(NULL, "--shard takes K/N (shard K of N, K from 0 to "
			                       "N-1), not \"%s\"", v), FK_ERR_USAGE;
		n = strtoul(end + 1, &end, 10);
		if (*end || n < 1 || n > 1000000 || k >= n)
			return cli_usage_error(NULL, "--shard takes K/N (shard K of N, K from 0 to "
			                       "N-1), not \"%s\"", v), FK_ERR_USAGE;
		c->shard_k = (unsigned)k;
		c->shard_n = (unsigned)n;
		return 1;
	}
	if (strncmp(a, "--threads", 9) == 0 && (a[9] == '\0' || a[9] == '=')) {
		char *end;
		long n;
		if (!(v = value_of(argc, argv, i, a, "--threads")))
			return cli_usage_error(NULL, "--threads needs a number"), FK_ERR_USAGE;
		n = strtol(v, &end, 10);
		if (*end || n < 1 || n > 256)
			return cli_usage_error(NULL, "--threads takes a number from 1 to 256, not \"%s\"", v), FK_ERR_USAGE;
		c->threads = (unsigned)n;
		return 1;
	}
	return 0;
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

int cli_output_opt(const char *cmd, int argc, char **argv, int *i, const char **outpath)
{
	const char *a = argv[*i];

	if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) {
		if (*i + 1 >= argc) {
			cli_usage_error(cmd, "%s needs a file name", a);
			return FK_ERR_USAGE;
		}
		*outpath = argv[++*i];
		return 1;
	}
	if (strncmp(a, "--output=", 9) == 0) {
		*outpath = a + 9;
		return 1;
	}
	return 0;
}

int cli_format_opt(const char *cmd, int argc, char **argv, int *i, const char **format)
{
	const char *a = argv[*i];

	if (strncmp(a, "--format=", 9) == 0) {
		*format = a + 9;
		return 1;
	}
	if (strcmp(a, "--format") != 0 && strcmp(a, "-f") != 0)
		return 0;
	if (*i + 1 >= argc) {
		cli_usage_error(cmd, "%s needs a format name", a);
		return FK_ERR_USAGE;
	}
	*format = argv[++*i];
	return 1;
}
