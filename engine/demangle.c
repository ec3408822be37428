/*
 * An input's demangling step.  Each input plugin declares in its
 * descriptor how its format's names are demangled by default (ABI 1.9's
 * `demangle`: no for the formats whose output must stay FlameGraph's byte
 * for byte, full or short for the others); the user overrides it for every
 * input (--demangle, --no-demangle) or for one (a job input's `demangle:`).
 * The step is the demangle filter plugin (libiberty lives in that module
 * alone), one instance per input, run on that input's frames only and
 * before any filter of the pipeline: two inputs of different defaults in
 * one run are each demangled as their own format wants.
 */
#include <string.h>

#include "fk.h"

int fk_demangle_parse(const char *text)
{
	static const struct {
		const char *name;
		int choice;
	} names[] = {
		{ "no", FK_DMG_NO }, { "false", FK_DMG_NO },
		{ "full", FK_DMG_FULL }, { "true", FK_DMG_FULL },
		{ "short", FK_DMG_SHORT },
	};

	for (size_t i = 0; text && i < sizeof names / sizeof names[0]; i++)
		if (strcmp(text, names[i].name) == 0)
			return names[i].choice;
	return -1;
}

/* fk_input_demangle, which reads the descriptor's default: calls.c. */

const char *fk_demangle_name(int d)
{
	return d == FK_DEMANGLE_FULL ? "full" : d == FK_DEMANGLE_SHORT ? "short" : "no";
}

/* Whether chain fc runs the demangle filter itself (a job's `filters:`
 * entry): it then takes over from the inputs' defaults. */
static bool chain_demangles(const struct fk_filter_chain *fc)
{
	for (size_t k = 0; fc && k < fc->n; k++)
		if (strcmp(fc->v[k].plugin->d.h.name, "demangle") == 0)
			return true;
	return false;
}

int fk_input_steps(const struct fk_registry *r, const struct fk_input_spec *spec,
                   const struct fk_plugin *pl, const struct fk_filter_chain *filters,
                   const char *name, struct fk_filter_chain *steps)
{
	const struct fk_plugin *dm;
	const char *style;
	char err[256];
	void *opts;
	int d, rc;

	memset(steps, 0, sizeof *steps);
	switch (spec->demangle) {
	case FK_DMG_NO:
		return 0;
	case FK_DMG_FULL:
		d = FK_DEMANGLE_FULL;
		break;
	case FK_DMG_SHORT:
		d = FK_DEMANGLE_SHORT;
		break;
	default:
		d = chain_demangles(filters) ? FK_DEMANGLE_NO : fk_input_demangle(pl);
		break;
	}
	if (d == FK_DEMANGLE_NO)
		return 0;
	style = fk_demangle_name(d);
	if (!(dm = fk_registry_find(r, FK_PLUGIN_FILTER, "demangle"))) {
		if (spec->demangle != FK_DMG_PLUGIN) {
			fk_log(FK_LOG_ERROR, "%s: cannot demangle: the demangle filter plugin is not "
			       "loaded (see flamekit plugins)", name);
			return FK_ERR_USAGE;
		}
		fk_log(FK_LOG_INFO, "%s: names not demangled: the demangle filter plugin is not loaded",
		       name);
		return 0;
	}
	if (fk_options_new(dm, &opts) < 0)
		goto nomem;
	if ((rc = fk_option_set(dm, opts, "style", style, err, sizeof err)) < 0) {
		fk_options_free(dm, opts);
		if (rc == FK_ERR_NOMEM)
			goto nomem;
		fk_log(FK_LOG_ERROR, "%s: the demangle filter plugin: %s", name, err);
		return rc;
	}
	/* the chain owns opts once added; not when adding failed (reported) */
	if ((rc = fk_filter_chain_add(steps, dm, opts, NULL)) < 0) {
		fk_options_free(dm, opts);
		return rc;
	}
	fk_log(FK_LOG_DEBUG, "%s: names demangled (%s)", name, style);
	return 0;
nomem:
	fk_log(FK_LOG_ERROR, "out of memory");
	return FK_ERR_NOMEM;
}
