/*
 * The v8 input plugin's halves: json.c streams the .cpuprofile through
 * yajl (libfkjson) into a struct v8_prof (the node table and the two
 * sample arrays, nothing else of the document), v8.c turns that into
 * stacks and samples.
 */
#ifndef FK_V8_H
#define FK_V8_H

#include <stddef.h>

#include <flamekit/plugin.h>

#define V8_NONE ((size_t)-1)

struct v8_node {
	double id;
	double parent_id;     /* its "parent" member, NAN when it has none */
	size_t kid_start, kid_end; /* its "children": kids[kid_start .. kid_end) */
	size_t name_off, name_len; /* its frame name in text (see v8_prof.full_names) */
	size_t url_off, url_len;   /* its callFrame's url in text (0 long: none) */
	int is_root;          /* the "(root)" node: not a frame */
	double hits;          /* hitCount, 0 when absent */
	size_t parent;        /* index, V8_NONE for none (set by v8.c) */
	fk_node_t leaf;       /* cached push result, FK_NODE_NONE until known */
};

/* Everything of a profile the plugin uses.  Arrays are the host's
 * allocations, freed by v8_prof_free.  A member that was not a number
 * (a child, a sample, a time delta) is stored as NAN. */
struct v8_prof {
	struct v8_node *v;
	size_t n, capv;
	double *kids;
	size_t nkids, capkids;
	char *text;           /* frame names, back to back */
	size_t tlen, tcap;
	double *samples, *deltas, *stamps;
	size_t nsamples, capsamples, ndeltas, capdeltas, nstamps, capstamps;
	double start;         /* startTime, 0 when absent */
	double end;           /* endTime, when has_end */
	int has_end;
	int full_names;       /* set by the caller: frames "FUNCTION URL:LINE",
	                       * else "FUNCTION (FILE:LINE)", FILE the url's last
	                       * path component (--frame-names) */
	int has_nodes;        /* "nodes" is an array */
	int has_samples, has_deltas; /* "samples", "timeDeltas" are arrays */
	int has_head;         /* the old format: a "head" tree (its nodes in v like
	                       * the current format's), startTime and endTime in
	                       * seconds, "timestamps" (stamps) in microseconds */
	int has_stamps;
};

/* Read all of `in` into *p (zeroed by the caller).  Syntax errors name
 * FILE:LINE and the column; a node without a numeric id, callFrame,
 * functionName or url is an error too.  Errors are reported (out of
 * memory too); returns 0 or a negative status. */
int v8_read(const struct fk_host *h, struct fk_input *in, struct v8_prof *p);
void v8_prof_free(const struct fk_host *h, struct v8_prof *p);

#endif
