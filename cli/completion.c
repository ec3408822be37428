/*
 * flamekit completion bash|zsh: the shell completion scripts, derived from
 * the option table (cli/options.c) and the options of the plugins loaded
 * when it runs: collapse takes every input plugin's, graph those too and
 * the svg plugin's (what draws by default).
 * `make install` runs the command of the build tree to install both
 * scripts where bash-completion and zsh look for them.
 */
#include <string.h>

#include "cli.h"

/* A word both shells take unquoted: plugin and option names are. */
static bool plain(const char *s)
{
	return *s && strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.") ==
	                 strlen(s);
}

/* One option a command takes, from the table or a plugin. */
struct word {
	const char *name; /* long name */
	char shortopt;
	bool value;       /* takes a value (as a separate word too) */
	const char *argname, *help;
	int id;           /* OPT_* or OPT_TEXT for a plugin's */
	bool path;        /* a plugin's FK_OPT_PATH */
};

struct words {
	struct word *v;
	size_t n, cap;
};

static int add(struct words *w, const struct word *x)
{
	if (!plain(x->name))
		return 0;
	for (size_t i = 0; i < w->n; i++)
		if (strcmp(w->v[i].name, x->name) == 0)
			return 0;
	if (w->n == w->cap) {
		size_t cap = w->cap ? 2 * w->cap : 64;
		struct word *v = fk_realloc(w->v, cap * sizeof *v);
		if (!v)
			return FK_ERR_NOMEM;
		w->v = v;
		w->cap = cap;
	}
	w->v[w->n++] = *x;
	return 0;
}

static int add_plugin(struct words *w, const struct fk_plugin *pl)
{
	int rc = 0;

	for (const struct fk_option *o = pl ? pl->d.h.options : NULL; o && o->type != FK_OPT_END && rc == 0; o++) {
		struct word x = { o->name, 0, o->type != FK_OPT_FLAG, "VALUE", o->help, OPT_TEXT,
		                  o->type == FK_OPT_PATH };
		rc = add(w, &x);
	}
	return rc;
}

/* The options of command bit `bit`: the table's, then its plugins'. */
static int command_words(const struct fk_registry *r, unsigned bit, struct words *w)
{
	int rc = 0;

	for (const struct cli_opt *o = cli_options; o->cmds && rc == 0; o++) {
		struct word x = { o->name, o->shortopt, o->arg == ARG_REQUIRED, o->argname, o->help, o->id,
		                  false };
		if ((o->cmds & bit) && o->name && o->id != OPT_WHOLE)
			rc = add(w, &x); /* short-only aliases: not offered; OPT_WHOLE: its plugin's */
	}
	if (bit & (CMD_COLLAPSE | CMD_GRAPH))
		for (size_t i = 0; i < r->n && rc == 0; i++)
			if (r->v[i]->d.h.kind == FK_PLUGIN_INPUT)
				rc = add_plugin(w, r->v[i]);
	if ((bit & CMD_GRAPH) && rc == 0)
		rc = add_plugin(w, fk_registry_find(r, FK_PLUGIN_OUTPUT, "svg"));
	return rc;
}

/* The names of r's plugins of one kind, space-separated. */
static void plugin_names(const struct fk_registry *r, int kind, const char *first)
{
	printf("%s", first);
	for (size_t i = 0; i < r->n; i++)
		if ((int)r->v[i]->d.h.kind == kind && plain(r->v[i]->d.h.name))
			printf(" %s", r->v[i]->d.h.name);
}

static const char *const commands[] = { "collapse", "graph", "diff", "merge", "run", "plugins",
	                                "completion" };
#define NCOMMANDS (sizeof commands / sizeof commands[0])

/* What completes the value of option x: a shell's list of words (printed
 * by plugin_names), files, directories or nothing. */
enum value_kind { V_NONE, V_FILE, V_DIR, V_INPUTS, V_OUTPUTS };

static enum value_kind value_kind(const struct word *x)
{
	switch (x->id) {
	case OPT_FORMAT:
		return V_INPUTS;
	case OPT_OUTPUT_PLUGIN:
		return V_OUTPUTS;
	case OPT_PLUGIN_DIR:
		return V_DIR;
	case OPT_OUTPUT:
		return V_FILE;
	case OPT_TEXT: /* a plugin's: files for paths, else nothing known */
		return x->path ? V_FILE : V_NONE;
	default:
		return V_NONE;
	}
}

/* How each shell completes a value: from a list of words, files,
 * directories, or not at all. */
struct shell {
	const char *list_open, *list_close, *dir, *file, *none;
};
static const struct shell bash_sh = {
	"COMPREPLY=($(compgen -W '", "' -- \"$cur\"))", "COMPREPLY=($(compgen -d -- \"$cur\"))",
	"COMPREPLY=($(compgen -f -- \"$cur\"))", "COMPREPLY=()",
};
static const struct shell zsh_sh = { "(", ")", "_files -/", "_files", " " };

static void value(const struct fk_registry *r, const struct shell *sh, enum value_kind k)
{
	if (k == V_INPUTS || k == V_OUTPUTS) {
		printf("%s", sh->list_open);
		plugin_names(r, k == V_INPUTS ? FK_PLUGIN_INPUT : FK_PLUGIN_OUTPUT,
		             k == V_INPUTS ? "auto" : "");
		printf("%s", sh->list_close);
	} else {
		printf("%s", k == V_DIR ? sh->dir : k == V_FILE ? sh->file : sh->none);
	}
}

/* Each command but completion with its options, to emit. */
static int each_command(const struct fk_registry *r,
                        void (*emit)(const struct fk_registry *r, const char *cmd,
                                     const struct words *w))
{
	int rc = 0;

	for (size_t c = 0; c < NCOMMANDS && rc == 0; c++) {
		unsigned bit = cli_cmd_bit(commands[c]);
		struct words w = { 0 };
		if (bit == CMD_COMPLETION)
			continue;
		if ((rc = command_words(r, bit, &w)) == 0)
			emit(r, commands[c], &w);
		fk_free(w.v);
	}
	return rc;
}

/* One command's case: what follows an option taking a value, its words. */
static void bash_command(const struct fk_registry *r, const char *cmd, const struct words *w)
{
	printf("\t%s)\n\t\tcase $prev in\n", cmd);
	for (size_t i = 0; i < w->n; i++) {
		if (!w->v[i].value)
			continue;
		printf("\t\t");
		if (w->v[i].shortopt)
			printf("-%c|", w->v[i].shortopt);
		printf("--%s) ", w->v[i].name);
		value(r, &bash_sh, value_kind(&w->v[i]));
		printf("; return ;;\n");
	}
	printf("\t\tesac\n\t\twords='");
	for (size_t i = 0; i < w->n; i++)
		printf("%s--%s", i ? " " : "", w->v[i].name);
	for (size_t i = 0; i < w->n; i++)
		if (w->v[i].shortopt)
			printf(" -%c", w->v[i].shortopt);
	printf("' ;;\n");
}

static int bash(const struct fk_registry *r)
{
	int rc = 0;

	printf("# bash completion for flamekit(1), generated by 'flamekit completion bash' from\n"
	       "# the command's option table and the plugins loaded when it ran.\n"
	       "_flamekit()\n{\n"
	       "\tlocal cur=${COMP_WORDS[COMP_CWORD]} prev= words=\n"
	       "\t[ \"$COMP_CWORD\" -gt 1 ] && prev=${COMP_WORDS[COMP_CWORD-1]}\n"
	       "\tif [ \"$COMP_CWORD\" -le 1 ]; then\n"
	       "\t\tCOMPREPLY=($(compgen -W '");
	for (size_t i = 0; i < NCOMMANDS; i++)
		printf("%s ", commands[i]);
	printf("help --help --version' -- \"$cur\"))\n\t\treturn\n\tfi\n"
	       "\tcase ${COMP_WORDS[1]} in\n");
	printf("\thelp)\n\t\t[ \"$COMP_CWORD\" -eq 2 ] && COMPREPLY=($(compgen -W '");
	for (size_t i = 0; i < NCOMMANDS; i++)
		printf("%s%s", i ? " " : "", commands[i]);
	printf("' -- \"$cur\"))\n\t\treturn ;;\n");
	printf("\tcompletion)\n\t\t[ \"$COMP_CWORD\" -eq 2 ] && COMPREPLY=($(compgen -W 'bash zsh' -- "
	       "\"$cur\"))\n\t\treturn ;;\n");
	rc = each_command(r, bash_command);
	printf("\tesac\n"
	       "\tcase $cur in\n"
	       "\t-*) COMPREPLY=($(compgen -W \"$words\" -- \"$cur\")) ;;\n"
	       "\t*) COMPREPLY=($(compgen -f -- \"$cur\")) ;;\n"
	       "\tesac\n}\n"
	       "complete -o filenames -F _flamekit flamekit\n");
	return rc;
}

/* A help line as a zsh _arguments description, inside '...[' and ']'. */
static void zsh_text(const char *s)
{
	for (; *s; s++) {
		if (*s == '\'')
			printf("'\\''");
		else if (*s == '[' || *s == ']' || *s == '\\' || *s == ':')
			printf("\\%c", *s);
		else if (*s == '@')
			continue; /* @INPUTS@: the value's list says which */
		else
			putchar(*s);
	}
}

/* One command's case: its _arguments specs. */
static void zsh_command(const struct fk_registry *r, const char *cmd, const struct words *w)
{
	printf("\t%s)\n\t\topts=(\n", cmd);
	for (size_t i = 0; i < w->n; i++) {
		const struct word *x = &w->v[i];
		for (int s = 0; s < 1 + (x->shortopt != 0); s++) {
			if (s)
				printf("\t\t\t'-%c[", x->shortopt);
			else
				printf("\t\t\t'--%s%s[", x->name, x->value ? "=" : "");
			zsh_text(x->help ? x->help : "");
			printf("]");
			if (x->value) {
				printf(":%s:", x->argname ? x->argname : "VALUE");
				value(r, &zsh_sh, value_kind(x));
			}
			printf("'\n");
		}
	}
	printf("\t\t) ;;\n");
}

static int zsh(const struct fk_registry *r)
{
	int rc = 0;

	printf("#compdef flamekit\n"
	       "# zsh completion for flamekit(1), generated by 'flamekit completion zsh' from\n"
	       "# the command's option table and the plugins loaded when it ran.\n"
	       "_flamekit() {\n"
	       "\tlocal -a opts cmds\n"
	       "\tif (( CURRENT == 2 )); then\n"
	       "\t\tcmds=(\n");
	for (const struct cli_command *k = cli_commands; k->name; k++) {
		printf("\t\t\t'%s:", k->name);
		zsh_text(k->summary);
		printf("'\n");
	}
	printf("\t\t\t'help:describe a command'\n\t\t)\n"
	       "\t\t_describe -t commands 'flamekit command' cmds\n\t\treturn\n\tfi\n"
	       "\tcase $words[2] in\n");
	printf("\thelp) (( CURRENT == 3 )) && compadd --");
	for (size_t i = 0; i < NCOMMANDS; i++)
		printf(" %s", commands[i]);
	printf("; return ;;\n\tcompletion) (( CURRENT == 3 )) && compadd -- bash zsh; return ;;\n");
	rc = each_command(r, zsh_command);
	printf("\tesac\n\t_arguments -S $opts '*:file:_files'\n}\n_flamekit \"$@\"\n");
	return rc;
}

int cmd_completion(struct cli *c, int argc, char **argv)
{
	struct cli_args a;
	const char *shell;
	int rc = cli_parse(c, "completion", argc, argv, NULL, NULL, NULL, &a);

	shell = a.nfiles == 1 ? a.files[0] : NULL;
	if (rc == 0 && (!shell || (strcmp(shell, "bash") != 0 && strcmp(shell, "zsh") != 0))) {
		cli_usage_error("completion", "takes one shell: bash or zsh");
		rc = FK_ERR_USAGE;
	}
	if (rc == 0 && (rc = cli_load(c)) >= 0) {
		rc = strcmp(shell, "bash") == 0 ? bash(&c->reg) : zsh(&c->reg);
		if (rc == FK_ERR_NOMEM)
			fk_log(FK_LOG_ERROR, "out of memory");
	}
	cli_args_free(&a);
	return cli_exit(rc);
}
