/* The whole-stack table of foldsum.c, shared with graphsum.c. */
#ifndef FK_CLI_FOLDSUM_H
#define FK_CLI_FOLDSUM_H

#include "cli.h"

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

#endif
