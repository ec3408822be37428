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

/* What a loaded job reads and writes (paths resolved against the job
 * file), valid while the job lives: for tools that vet a job before running
 * it, such as the fuzzing harness. */
const struct fk_input_spec *fk_job_inputs(const struct fk_job *job, size_t *n);
const struct fk_output_spec *fk_job_outputs(const struct fk_job *job, size_t *n);

#endif
