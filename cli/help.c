/*
 * 'flamekit help CMD': the options of the table (cli/options.c) that the
 * command takes, each row's help wrapped at 80 columns under column 21,
 * with the plugins loaded where a row names them (@INPUTS@, @OUTPUTS@).
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define COLUMN 21
#define WIDTH 80

/* Where a help text lists the plugins loaded: @INPUTS@, @OUTPUTS@. */
static const struct {
	const char *token;
	int kind;
} help_lists[] = { { "@INPUTS@", FK_PLUGIN_INPUT }, { "@OUTPUTS@", FK_PLUGIN_OUTPUT } };

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The names of r's plugins of one kind, sorted, ", "-separated, into b. */
static int kind_names(const struct fk_registry *r, int kind, struct fk_buf *b)
{
	const char **v = fk_malloc((r->n + 1) * sizeof *v);
	size_t n = 0;
	int rc = 0;

	if (!v)
		return FK_ERR_NOMEM;
	for (size_t i = 0; i < r->n; i++)
		if ((int)r->v[i]->d.h.kind == kind)
			v[n++] = r->v[i]->d.h.name;
	if (n > 1)
		qsort(v, n, sizeof *v, cmp_name);
	for (size_t i = 0; i < n && rc == 0; i++)
		rc = fk_buf_printf(b, "%s%s", i ? ", " : "", v[i]);
	if (n == 0 && rc == 0)
		rc = fk_buf_printf(b, "none (is FLAMEKIT_PLUGIN_PATH right?)");
	fk_free(v);
	return rc;
}

/* A row's help with each token replaced by the plugins' names, into b. */
static int expand(const char *help, const struct fk_registry *r, struct fk_buf *b)
{
	int rc = 0;

	while (*help && rc == 0) {
		size_t k = 0, n = strcspn(help, "@");
		if ((rc = fk_buf_append(b, help, n)) < 0)
			break;
		help += n;
		if (!*help)
			break;
		while (k < sizeof help_lists / sizeof help_lists[0] &&
		       strncmp(help, help_lists[k].token, strlen(help_lists[k].token)) != 0)
			k++;
		if (k == sizeof help_lists / sizeof help_lists[0]) {
			rc = fk_buf_append(b, help++, 1);
			continue;
		}
		rc = kind_names(r, help_lists[k].kind, b);
		help += strlen(help_lists[k].token);
	}
	return rc < 0 ? rc : fk_buf_append(b, "", 1);
}

/* Words of p from column col on, wrapped under COLUMN. */
static void wrap(const char *p, size_t col)
{
	for (bool first = true; *p; first = false) {
		size_t w = strcspn(p, " ");
		if (!first && col + 1 + w > WIDTH) {
			printf("\n%*s", COLUMN, "");
			col = COLUMN;
		} else if (!first) {
			putchar(' ');
			col++;
		}
		fwrite(p, 1, w, stdout);
		col += w;
		p += w;
		p += strspn(p, " ");
	}
	putchar('\n');
}

/* "  -f, --format NAME" for row o, into b. */
static int label_of(const struct cli_opt *o, struct fk_buf *b)
{
	int rc;

	if (o->label)
		return fk_buf_printf(b, "  %s", o->label);
	if ((rc = fk_buf_printf(b, "  ")) < 0 ||
	    (o->shortopt && (rc = fk_buf_printf(b, "-%c%s", o->shortopt, o->name ? ", " : "")) < 0) ||
	    (o->name && (rc = fk_buf_printf(b, "--%s", o->name)) < 0))
		return rc;
	if (o->arg == ARG_REQUIRED || o->arg == ARG_NUMBER)
		return fk_buf_printf(b, " %s", o->argname);
	if (o->arg == ARG_OPTIONAL)
		return fk_buf_printf(b, "[=%s]", o->argname);
	return 0;
}

static int print_row(const struct cli_opt *o, const struct fk_registry *r)
{
	struct fk_buf label = { 0 }, text = { 0 };
	size_t pad;
	int rc;

	if ((rc = label_of(o, &label)) < 0 || (rc = expand(o->help, r, &text)) < 0)
		goto out;
	pad = label.len + 2 <= COLUMN ? COLUMN - label.len : 2;
	printf("%s%*s", label.data, (int)pad, "");
	wrap(text.data, label.len + pad);
out:
	fk_buf_free(&label);
	fk_buf_free(&text);
	return rc;
}

int cli_help_options(const char *cmd, const struct fk_registry *r)
{
	unsigned bit = cli_cmd_bit(cmd);
	int rc = 0;

	printf("\nOptions:\n");
	for (const struct cli_opt *o = cli_options; o->cmds && rc == 0; o++)
		if ((o->cmds & bit) && o->cmds != CMD_ALL && o->id != OPT_WHOLE)
			rc = print_row(o, r); /* OPT_WHOLE: in its plugin's table */
	printf("\nCommon options:\n");
	for (const struct cli_opt *o = cli_options; o->cmds && rc == 0; o++)
		if (o->cmds == CMD_ALL)
			rc = print_row(o, r);
	if (rc < 0)
		fk_log(FK_LOG_ERROR, "out of memory");
	return rc;
}
