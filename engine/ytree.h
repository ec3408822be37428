/*
 * The job file's YAML, read into a small tree (ytree.c).  libyaml's event
 * API rather than its document API: libyaml 0.2.5 silently accepts
 * duplicate keys, builds alias graphs and has no depth limit.  Reading
 * events lets us refuse aliases and anchors as they appear (a
 * billion-laughs file fails at its first alias), stop at FK_JOB_DEPTH_MAX
 * levels, and catch duplicate keys with both positions.  The --set
 * overrides edit the same tree.  job.c walks it against the job schema.
 */
#ifndef FK_YTREE_H
#define FK_YTREE_H

#include <stdbool.h>
#include <stddef.h>

enum { Y_SCALAR, Y_MAP, Y_SEQ };

/* A node owns its children and its text. */
struct ynode {
	int type;
	char *text;           /* scalar, NUL-terminated */
	size_t len;
	bool plain;           /* unquoted scalar: may be a number, true, null */
	unsigned line, col;   /* 1-based, in the job file */
	const char *origin;   /* NULL: the file; else "--set KEY" (owned by the
	                       * caller of fk_yt_set, who keeps it longer) */
	struct ynode **v;     /* map: key, value, key, value ...; list: items */
	size_t n, cap;
};

void fk_yt_free(struct ynode *n);
/* Parse len bytes of YAML named `name` (for messages) into *out (NULL
 * for an empty document).  Errors are reported as "name:L:C: ...". */
int fk_yt_read(const char *name, const unsigned char *text, size_t len, struct ynode **out);
/* Read a whole job file (at most FK_JOB_SIZE_MAX bytes) into *data, which
 * the caller frees. */
int fk_yt_read_file(const char *path, char **data, size_t *len);
/* Apply one --set KEY=VALUE to *root (creating it when NULL).  *origin_out
 * receives the "--set KEY" text the new nodes point at, even on error:
 * the caller frees it after the tree. */
int fk_yt_set(struct ynode **root, const char *set, char **origin_out);
/* "a mapping", "a list" or the quoted scalar, for messages: a static
 * buffer, valid until the next call. */
const char *fk_yt_found(const struct ynode *n);
/* Write control characters of s as \\n, \\t or \\xHH, in place. */
void fk_yt_escape(char *s, size_t size);
static inline bool fk_yt_is_null(const struct ynode *n)
{
	return n->type == Y_SCALAR && n->plain &&
	       (n->len == 0 || (n->len == 1 && n->text[0] == '~') ||
	        (n->len == 4 && n->text[0] == 'n' && n->text[1] == 'u' && n->text[2] == 'l' &&
	         n->text[3] == 'l'));
}

#endif
