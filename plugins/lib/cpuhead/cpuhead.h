/*
 * libfkcpuhead: the old .cpuprofile's "head" tree (node 10 and older,
 * Chrome DevTools before 2016, and the CpuProfile events of traces of that
 * time), read as it streams through libfkjson and handed on one node at a
 * time in the shape of the current format's "nodes" entries:
 *
 *     {"head": {"functionName": "(root)", "url": "", "lineNumber": 0,
 *               "hitCount": 0, "callUID": 1, "id": 1, "children": [
 *                 {"functionName": "f", "url": "file:///a.js",
 *                  "lineNumber": 3, "id": 2, "hitCount": 5, "children": []}]},
 *      "startTime": SECONDS, "endTime": SECONDS, "samples": [ID, ...],
 *      "timestamps": [MICROSECONDS, ...]}
 *
 * The v8 and chrome plugins link it.  The tree nests as deep as the
 * profile's stacks, so nothing here recurses: each open node is an entry
 * of an array on the heap, its strings on a stack of text, its closed
 * children's ids on a stack of ids.  A node is handed on when it closes
 * (children before their parent, as V8 writes "id" after "children"),
 * with its children's ids, so that the plugin links it as it links a
 * current node.  The tree may be FK_CPUHEAD_MAX_DEPTH nodes deep;
 * anything else inside a node (positionTicks, ...) nests at most
 * FK_JSON_MAX_DEPTH deep.  Memory: the open path and the text of its
 * nodes, never the whole tree.
 */
#ifndef FK_CPUHEAD_H
#define FK_CPUHEAD_H

#include <stddef.h>

#include <flamekit/plugin.h>

#include "fk_json.h"

/* Deeper than any stack V8 samples (at most 255 frames, with their
 * inlined callees), far below what memory would mind (about 100 bytes
 * a level). */
#define FK_CPUHEAD_MAX_DEPTH 100000

/* One node, valid during the callback only. */
struct fk_cpuhead_node {
	size_t number;             /* 1-based, in document order (the root is 1) */
	int has_id;                /* "id" is a number */
	double id;
	int has_fn, has_url;       /* "functionName", "url" are strings */
	const char *fn, *url;
	size_t fn_len, url_len;
	int has_line;              /* "lineNumber" is a number: */
	double line;               /* 0-based, as a callFrame's (the head's is 1-based) */
	double hits;               /* "hitCount", 0 when absent */
	const double *kids;        /* the children's ids, NAN for one without */
	size_t nkids;
};

struct fk_cpuhead_ops {
	/* A node closed: 1 to go on, 0 to stop (after fk_json_fail, ...). */
	int (*node)(void *ctx, const struct fk_cpuhead_node *n);
	/* Bad content (msg: "a child of node number 3 of the \"head\" tree
	 * is not an object"): what the JSON callback returns, 1 to read on
	 * regardless (what was bad is skipped) or 0 to stop.  When fatal (a
	 * tree too deep), the parse must stop: the callee reports it (or
	 * calls fk_json_fail) and returns 0. */
	int (*fail)(void *ctx, const char *msg, int fatal);
};

/* Set up by fk_cpuhead_init; its memory is the host's, freed by
 * fk_cpuhead_free. */
struct fk_cpuhead {
	const struct fk_host *h;
	struct fk_json *j;
	const struct fk_cpuhead_ops *ops;
	void *ctx;
	/* private to cpuhead.c */
	struct fk_cpuhead_level *lv;
	size_t depth, caplv;
	size_t skip;               /* containers open inside a node, not its children */
	char *text;
	size_t tlen, tcap;
	double *kids;
	size_t nkids, capkids;
	size_t count;
};

/* Set t up (zeroed) to read through j, handing nodes to ops with ctx. */
void fk_cpuhead_init(struct fk_cpuhead *t, struct fk_json *j, const struct fk_cpuhead_ops *ops, void *ctx);

/* The head object has just opened (the caller's open callback got it):
 * from here until fk_cpuhead_active is 0 again, the caller passes every
 * JSON callback to the functions below and returns what they return. */
int fk_cpuhead_begin(struct fk_cpuhead *t);
int fk_cpuhead_active(const struct fk_cpuhead *t);
int fk_cpuhead_scalar(struct fk_cpuhead *t, int type, double num, const unsigned char *s, size_t len);
int fk_cpuhead_key(struct fk_cpuhead *t, const unsigned char *s, size_t len);
int fk_cpuhead_open(struct fk_cpuhead *t, int is_map);
int fk_cpuhead_close(struct fk_cpuhead *t);
void fk_cpuhead_free(struct fk_cpuhead *t);

#endif
