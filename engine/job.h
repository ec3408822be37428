/*
 * YAML job files: `flamekit run JOB.yaml` (flamekit-job(5) is the reference).
 *
 * A job names inputs (paths or globs relative to the job file, each with a
 * format, options and a series), an ordered list of filters and several
 * outputs.  fk_job_load parses the file with libyaml's event API into a
 * small tree (refusing aliases, anchors, tags, duplicate keys and nesting
 * deeper than FK_JOB_DEPTH_MAX, so a billion-laughs file fails at once),
 * applies --set overrides and validates everything against the plugins'
 * option tables.  Every error is reported once, as "job.yaml:LINE:COL:
 * message" (or "--set KEY: message"), and the load returns FK_ERR_USAGE.
 */
#ifndef FK_JOB_H
#define FK_JOB_H

#include "fk.h"

#define FK_JOB_DEPTH_MAX 64
/* Largest job file read, in bytes. */
#define FK_JOB_SIZE_MAX (64 << 20)

struct fk_job;

/* Load and validate `path` against the plugins of `reg` (which must stay
 * loaded while the job lives).  `sets` are "KEY=VALUE" overrides applied
 * before validation; KEY is a dotted path such as outputs.0.options.title
 * (sequence items by 0-based index).  On success *out is owned by the
 * caller (fk_job_free). */
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

/* What a loaded job reads and writes (paths resolved against the job
 * file), valid while the job lives: for tools that vet a job before running
 * it, such as the fuzzing harness. */
const struct fk_input_spec *fk_job_inputs(const struct fk_job *job, size_t *n);
const struct fk_output_spec *fk_job_outputs(const struct fk_job *job, size_t *n);

#endif
