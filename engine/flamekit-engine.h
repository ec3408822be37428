/*
 * flamekit's engine as the command sees it: the public API of libfkengine.
 * The command (every file of cli/) includes this header and the plugin SDK it includes,
 * nothing else of the engine, as Lua's lua.c uses only lua.h and
 * lauxlib.h: what a command needs to load plugins, set their options, and
 * run inputs through filters into outputs (fk_pipeline_run, fk_job_run).
 * The engine's own code includes fk.h, which includes this; everything
 * there (interning, the stack tree, sinks, readers and writers) is
 * internal.  tests/layering.sh checks the boundary.
 */
#ifndef FLAMEKIT_ENGINE_H
#define FLAMEKIT_ENGINE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "flamekit/plugin.h"

/* ---- status ----------------------------------------------------------- */
const char *fk_strerror(int status);

/* ---- memory (alloc.c) ------------------------------------------------- *
 * Every engine allocation goes through these, so tests can inject a failure
 * at the Nth call (fk_alloc_fail_after).  They return NULL on failure; the
 * x-variants do not exist on purpose: callers handle NULL.
 */
void *fk_malloc(size_t n);
void *fk_calloc(size_t n, size_t size);
void *fk_realloc(void *p, size_t n);
void fk_free(void *p);
char *fk_strndup(const char *s, size_t n);
char *fk_strdup(const char *s);
/* After `n` more successful allocations, fail every one (n < 0: never).
 * Thread-safe: with several threads allocating, exactly `n` succeed. */
void fk_alloc_fail_after(long n);
/* How many allocations were asked for so far (failed ones included). */
unsigned long fk_alloc_calls(void);
/* Called once, just before the first injected failure, from the thread
 * that will see it (tests print a backtrace there). */
extern void (*fk_alloc_fail_hook)(void);
/* Put the heap on transparent huge pages where the system has them (Linux
 * with glibc; see alloc.c).  Call first thing, before threads start. */
void fk_heap_tune(void);

/* ---- logging (log.c) --------------------------------------------------- *
 * Each message's prefix, silence and "reported" mark come from the calling
 * thread's context (engine/context.h); the verbosity from
 * fk_log_set_verbosity, below. */
extern const char *fk_progname; /* "flamekit" */
/* "flamekit: " + the context's prefix + message + "\n" to stderr. */
void fk_log(int level, const char *fmt, ...) FK_PRINTF(2, 3);
void fk_vlog(int level, const char *fmt, va_list ap);
/* ---- verbosity (context.c) ----------------------------------------------- *
 * The one process-wide setting: the FK_LOG_* level up to which messages are
 * printed (default FK_LOG_WARN), set by the command's -q and -v before any
 * work starts. */
int fk_log_verbosity(void);
void fk_log_set_verbosity(int level);

/* ---- growable byte buffer ---------------------------------------------- */
struct fk_buf {
	char *data;
	size_t len, cap;
};
int fk_buf_reserve(struct fk_buf *b, size_t extra);
int fk_buf_append(struct fk_buf *b, const void *p, size_t n);
int fk_buf_printf(struct fk_buf *b, const char *fmt, ...) FK_PRINTF(2, 3);
void fk_buf_free(struct fk_buf *b);

/* ---- plugins (plugin.c) -------------------------------------------------- */
struct fk_plugin {
	union {
		struct fk_plugin_header h;
		struct fk_input_plugin in;
		struct fk_filter_plugin filter;
		struct fk_output_plugin out;
	} d;                 /* our copy of the descriptor, zero-filled */
	char *path;          /* the module file */
	void *handle;        /* lt_dlhandle */
	char *prefix;        /* "[KIND:NAME] " */
	/* d.h.options points here when the plugin's table carries option
	 * flags (ABI 1.7): a copy with the flags taken out of each type, so
	 * that the engine's code sees plain types, and the flags of each
	 * entry, in table order (NULL: no option has any).  Owned. */
	struct fk_option *own_options;
	unsigned *optflags;
};

struct fk_registry {
	struct fk_plugin **v;
	size_t n;
	char **dirs;         /* search path, in order */
	size_t ndirs;
	unsigned refused;    /* modules refused while loading */
	/* The process exits next: fk_registry_free leaves the modules mapped
	 * (unmapping twenty of them took 1.3 ms of a 10 ms run). */
	bool keep_loaded;
};

int fk_registry_init(struct fk_registry *r);
void fk_registry_free(struct fk_registry *r);
/* Add a directory to the search path (before the environment/default). */
int fk_registry_add_dir(struct fk_registry *r, const char *dir);
/* Load every module of the search path: --plugin-dir dirs, then
 * FLAMEKIT_PLUGIN_PATH (colon-separated), then the install directory.  A
 * module that cannot be used is refused with a warning; the rest load. */
int fk_registry_load_all(struct fk_registry *r);
const struct fk_plugin *fk_registry_find(const struct fk_registry *r, int kind, const char *name);
const char *fk_kind_name(int kind);
/* `flamekit plugins --probe`: one line on f for input `path` (decompressed
 * as any input is), "PATH: NAME (NAME SCORE, ...)": the plugin detection
 * picks, then every input plugin whose probe claims the first 64 KiB
 * (confidence above 0; highest first, ties in load order, the first of
 * them the one picked); "PATH: none" when none does, "PATH: empty" for an
 * empty or blank input.  0, or a negative status (reported: an input that
 * cannot be read, UTF-16 text) with nothing printed. */
int fk_probe_print(const struct fk_registry *r, const char *path, FILE *f);

/* ---- options (options.c) ------------------------------------------------- */
/* Allocate a plugin's options struct with its defaults applied. */
int fk_options_new(const struct fk_plugin *pl, void **opts);
void fk_options_free(const struct fk_plugin *pl, void *opts);
/* Find an option by name; NULL if unknown. */
const struct fk_option *fk_option_find(const struct fk_plugin *pl, const char *name);
/* Set one option from text (an FK_OPT_VALUE option becomes a STRING
 * value).  On error returns FK_ERR_USAGE and writes the reason (no
 * location) into err. */
int fk_option_set(const struct fk_plugin *pl, void *opts, const char *name,
                  const char *value, char *err, size_t errlen);
/* Print `flamekit plugins --help NAME` text. */
void fk_options_help(const struct fk_plugin *pl, FILE *f);
/* Only its table: one line an option, with type, help and default. */
void fk_options_table(const struct fk_plugin *pl, FILE *f);

/* ---- filters (filter.c) ----------------------------------------------------- */
struct fk_filter_inst;
struct fk_filter_chain {
	struct fk_filter_inst *v;
	size_t n;
	bool has_sample;  /* some filter has a per-sample callback */
	bool has_frame;
};

/* Add an instance of filter pl with opts (the chain owns them once added,
 * not when adding fails).  The chain is to be freed with
 * fk_filter_chain_free whether adding succeeded or not: it may have grown. */
int fk_filter_chain_add(struct fk_filter_chain *fc, const struct fk_plugin *pl,
                        void *opts, const char *where);
void fk_filter_chain_free(struct fk_filter_chain *fc);

/* ---- an input's demangling (demangle.c) --------------------------------------
 * The user's choice for an input (fk_input_spec.demangle): its plugin's
 * default (struct fk_input_plugin's demangle, ABI 1.9), or one of the
 * three styles. */
enum fk_demangle_choice {
	FK_DMG_PLUGIN = 0, /* the input plugin's default */
	FK_DMG_NO,         /* --no-demangle, --demangle=no, `demangle: no` */
	FK_DMG_FULL,       /* --demangle, =full */
	FK_DMG_SHORT,      /* --demangle=short */
};
/* The choice text names (no, full, short; false and true as no and
 * full, a job file's booleans), or -1 for any other text. */
int fk_demangle_parse(const char *text);
/* Input plugin pl's default, an enum fk_demangle (FK_DEMANGLE_NO for a
 * plugin built before ABI 1.9). */
int fk_input_demangle(const struct fk_plugin *pl);
/* ---- pipeline (pipeline.c) ----------------------------------------------------
 * What `collapse`, `graph` and `run` share: read inputs into a profile,
 * apply filters, render outputs atomically.
 */
struct fk_input_spec {
	const char *path;
	const struct fk_plugin *plugin;  /* NULL: auto-detect */
	void *opts;                      /* plugin options, or NULL for defaults */
	int series;
	const char *where;               /* for messages, may be NULL */
	/* Options to apply once the plugin is known (auto-detection):
	 * names without "--", values NULL for flags. */
	const char *const *optnames;
	const char *const *optvalues;
	size_t nopts;
	/* Parse only shard shard_k of shard_n (see fk_input_shard); shard_n 0
	 * or 1 reads everything. */
	unsigned shard_k, shard_n;
	/* `plugin` is only a default (graph's folded): an input that another
	 * plugin recognises for certain (its probe says 100: a magic number,
	 * as perf.data's) is read by that one, with its default options. */
	bool magic_wins;
	/* enum fk_demangle_choice: how this input's names are demangled
	 * (FK_DMG_PLUGIN, 0: as its plugin's descriptor says). */
	int demangle;
};

struct fk_output_spec {
	const struct fk_plugin *plugin;
	void *opts;
	const char *path;                /* NULL or "-" for stdout */
	const char *where;               /* the options' origin for messages, or NULL */
};

struct fk_pipeline {
	struct fk_registry *reg;
	struct fk_input_spec *inputs;
	size_t ninputs;
	struct fk_filter_chain filters;
	struct fk_output_spec *outputs;
	size_t noutputs;
	unsigned threads;
	int progress;                    /* 0 never, 1 if stderr is a tty, 2 always */
};

/* Run everything, all or nothing: every output file is created (as a
 * temporary) before the inputs are read, rendered, flushed and closed, and
 * only when all of that succeeded are they renamed into place.  Folded
 * inputs into the folded output alone are summed without the stack tree
 * (engine/foldsum.c), and regular folded files into outputs that draw only
 * wide frames (min_weight) go into a tree of only those frames
 * (engine/prune.c), with the same bytes.  Outputs to
 * stdout are rendered last, since what reaches stdout cannot be taken back. */
int fk_pipeline_run(struct fk_pipeline *pl);

/* ---- differential profiles (diff.c) ------------------------------------------
 * difffolded.pl's comparison: BEFORE's stacks weigh in series 0, AFTER's
 * in series 1, of one profile rendered into every output (the folded
 * plugin writes `stack before after` lines).  The caller owns every array. */
struct fk_diff {
	struct fk_registry *reg;
	const struct fk_input_spec *sides[2]; /* BEFORE's inputs, AFTER's (series ignored) */
	size_t nsides[2];                  /* each at least 1; a side's inputs are summed */
	struct fk_filter_chain filters[2]; /* each side's own; the caller frees them */
	struct fk_output_spec *outputs;
	size_t noutputs;
	bool normalize;                    /* -n: BEFORE scaled to AFTER's total */
	bool strip_hex;                    /* -s: 0x<hex> in frame names becomes 0x... */
	unsigned threads;
	int progress;                      /* as struct fk_pipeline's */
};
/* Read both sides, each into a profile of its own (a side holding two
 * series is refused), compare them and write the output, all or nothing.
 * 0 or a negative status, reported. */
int fk_diff_run(struct fk_diff *d);

/* ---- merging folded files (merge.c) ------------------------------------------
 * `flamekit merge`: folded files summed into one sorted folded file, the
 * bytes `collapse --format folded` writes for their concatenation.  Inputs
 * sorted in byte order are merged as streams (memory: one read buffer per
 * input); when one is not, or a two-column line follows one-column ones,
 * the inputs are summed in memory instead (engine/foldsum.c), if every one
 * can be read again and nothing written must be taken back; else it fails
 * saying what to do.  The caller owns every array. */
struct fk_merge {
	const struct fk_registry *reg;  /* the folded plugins, for the in-memory sum */
	const char *const *files;       /* at least one; "-" is stdin, .gz is read */
	size_t nfiles;
	const char *output;             /* NULL or "-" for stdout */
	int progress;                   /* as struct fk_pipeline's (the in-memory sum) */
};
/* Merge, all or nothing (an output that is one of the inputs is refused).
 * 0 or a negative status, reported, but for FK_ERR_PLUGIN: the inputs had
 * to be summed in memory and the folded input or output plugin is not
 * loaded, which the caller reports as it reports a plugin it cannot find. */
int fk_merge_run(const struct fk_merge *m);

/* ---- outputs (writer.c) ------------------------------------------------------ */
/* Refuse an output (NULL or "-": stdout, never refused) that is one of the
 * regular files files[0..n) (fk_output_replaces): `graph -o in.folded
 * in.folded` would replace the profile with its graph.  0, or FK_ERR_USAGE
 * reported. */
int fk_output_not_input(const char *out, const char *const *files, size_t n);

/* ---- job files (job.c; flamekit-job(5)) ------------------------------------- */
struct fk_job;

/* Load and validate `path` against the plugins of `reg` (which must stay
 * loaded while the job lives).  `sets` are "KEY=VALUE" overrides applied
 * before validation; KEY is a dotted path such as outputs.0.options.title
 * (sequence items by 0-based index).  On success *out is owned by the
 * caller (fk_job_free).  A job with a `diff` key runs fk_diff_run. */
int fk_job_load(struct fk_job **out, const char *path, struct fk_registry *reg,
                const char *const *sets, size_t nsets);
/* Create the filter instances (so scripted filters compile their scripts) without reading any
 * input: what `run --check` does after loading. */
int fk_job_check(struct fk_job *job);
/* Run the job, all or nothing (see fk_pipeline_run).  Parsing threads:
 * `threads` when not 0 (--threads), else the job's `threads` key, else
 * `fallback` (the number of cores). */
int fk_job_run(struct fk_job *job, unsigned threads, unsigned fallback, int progress);
void fk_job_free(struct fk_job *job);

#endif
