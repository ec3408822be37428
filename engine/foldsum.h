/*
 * Folded in, folded out, without the stack tree (foldsum.c): the
 * shortcut fk_pipeline_run takes when every input is folded and the one
 * output is the folded plugin, the whole-stack table prune.c builds
 * on, and the line reader and writer `merge` streams with (merge.c).
 * Engine-internal.
 */
#ifndef FK_FOLDSUM_H
#define FK_FOLDSUM_H

#include "fk.h"

struct fs_stack {
	const char *key;     /* in the arena, not NUL-terminated */
	size_t len;
	double w[2];
};

struct foldsum {
	struct fs_stack *v;  /* entries, in first-seen order */
	size_t n, cap;
	uint64_t *slots;     /* hash << 32 | entry index + 1; 0 = empty */
	size_t mask;
	char **chunks;       /* arena: the stacks' text */
	size_t nchunks, used, chunk_cap;
	bool two;            /* some line had two counts */
	size_t nempty;       /* lines with an empty stack, and their weights */
	double empty[2];
};

/* A zeroed table gets its slots from foldsum_grow (which doubles them
 * later); foldsum_free frees everything the table holds. */
int foldsum_grow(struct foldsum *s);
void foldsum_free(struct foldsum *s);
/* Add the lines of `in` as the folded input plugin reads them: unreadable
 * lines skipped and counted in `in`; 0 or a negative status (reported). */
int foldsum_read(struct foldsum *s, struct fk_input *in);
/* The next line of `in` in the folded grammar (lib/folded), as the folded
 * input plugin reads it: unreadable lines skipped and counted in `in`.  1
 * with the line's stack, trailing ';' dropped, in key[0..*klen) (in in's
 * buffer, valid until the next read; *klen is 0 for an empty stack), its
 * counts in w[0..2) and whether it had two in *two; 0 at the end; a
 * negative status on a read error (reported).  foldsum_read and merge.c
 * read through it. */
int foldsum_next(struct fk_input *in, const char **key, size_t *klen, double *w, int *two);
/* Write stack key[0..len) and its count c[0] (and c[1] when two) as the
 * folded output plugin writes a line; *bytes (when not NULL) grows by the
 * bytes handed to w.  0 or w's negative status. */
int foldsum_put(struct fk_writer *w, const char *key, size_t len, const double *c, bool two,
                uint64_t *bytes);

/* The folded input plugin of r when every one of files[0..n) is folded:
 * in_pl is it, or in_pl is NULL and each file is a regular file detected
 * as folded, silently (the pipeline can open it again and detect it with
 * its own messages when one is not); else NULL. */
const struct fk_plugin *fk_foldsum_detect(const struct fk_registry *r,
                                          const struct fk_plugin *in_pl,
                                          const char *const *files, size_t n);
/* The folded input plugin when pl's inputs can be summed whole: no
 * filters, and every input folded (fk_foldsum_detect, or given as
 * folded), in series 0, whole (no shard), with no options and its names
 * left as they are; else NULL.  (prune.c asks it too.) */
const struct fk_plugin *fk_foldsum_inputs(const struct fk_pipeline *pl);
/* The folded input plugin when fk_pipeline_run can take the shortcut:
 * fk_foldsum_inputs, and one output, the folded plugin; else NULL. */
const struct fk_plugin *fk_foldsum_applies(const struct fk_pipeline *pl);
/* Read files[0..n) as folded (pl, the folded input plugin; `detected`:
 * each was detected, which is logged as the pipeline does), sum them and
 * write outpath (NULL or "-": stdout) all or nothing, with the bytes of
 * the pipeline (folded input plugin, stack tree, folded output plugin).
 * progress as struct fk_pipeline's.  0 or a negative status, reported. */
int fk_foldsum_run(const struct fk_registry *r, const struct fk_plugin *pl,
                   const char *const *files, size_t n, const char *outpath, int progress,
                   bool detected);

#endif
