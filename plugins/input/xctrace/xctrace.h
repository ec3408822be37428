/*
 * The xctrace input plugin's shared state (see xctrace.c for the format):
 * reader.c turns the bytes into libxml2 reader nodes (the DOCTYPE guard, the
 * I/O and error callbacks, line numbers, walking children); xctrace.c makes
 * entries of the elements and samples of the rows.  One struct cx per
 * parse, owned by parse(); nothing here outlives it.
 */
#ifndef FK_XCTRACE_H
#define FK_XCTRACE_H

#include <stdbool.h>
#include <stdint.h>

#include <libxml/xmlerror.h>
#include <libxml/xmlreader.h>

#include <flamekit/plugin.h>

#include "../common/limit.h"

#define NONE UINT32_MAX
#define NO_NUM INT64_MIN

struct opts {
	const char *sample_type;
	int thread_root;
	const char *max_input_size;
};

/* The elements read; their names are interned in the reader's dictionary
 * (c->nm[]), so that a name is known by its pointer. */
enum name {
	K_TIME, K_THREAD, K_PROCESS, K_TID, K_PID, K_STATE, K_WEIGHT, K_CYCLES, K_BT, K_TAGGED,
	K_FRAME, K_BINARY, /* the kinds of entries: the elements that may carry an id */
	N_KINDS,
	N_ROOT = N_KINDS, N_NODE, N_SCHEMA, N_ROW, N_SENTINEL,
	A_ID, A_REF, A_FMT, A_NAME, A_ADDR,
	N_NAMES
};

/* The tables read: the Time Profiler's (weights in ns) and the CPU
 * Profiler's (cycles); a node of another schema is passed over. */
enum table { T_NONE, T_TIME, T_CPU, T_OTHER };

/* One element read: what the rows and later refs need of it. */
struct ent {
	uint8_t kind;
	uint32_t off, len; /* its text (a frame's or binary's name, a thread's, process's or
	                    * state's fmt) in c->text; a backtrace's frames in c->pool */
	uint32_t link;     /* a frame's binary, a thread's process: an entry, or NONE */
	int64_t num;       /* a number's value, a thread's tid, a process's pid, or NO_NUM */
	fk_node_t node;    /* a backtrace's stack once pushed, or FK_NODE_NONE */
};

struct slot {
	uint64_t id; /* 0: empty (ids are 1 and more) */
	uint32_t ent;
};

struct cx {
	const struct fk_host *h;
	struct fk_input *in;
	struct fk_sink *sink;
	const struct opts *o;
	xmlTextReaderPtr r;
	const xmlChar *nm[N_NAMES];
	struct ent *e;
	size_t ne, cape;
	uint32_t *dense;  /* id -> entry (NONE: none), for ids up to the bytes read */
	size_t dcap;
	struct slot *tab; /* the other ids -> entry, open addressing, at most half full */
	size_t tabcap, tabn;
	char *text;
	size_t tlen, tcap;
	uint32_t *pool; /* the backtraces' frames, leaf first */
	size_t plen, pcap;
	uint32_t *fl;   /* the frames of the backtraces being read */
	size_t fln, flcap;
	char *buf;      /* the text of the element being read */
	size_t blen, bcap;
	struct fk_frameref *refs;
	size_t caprefs;
	long last_line; /* of the last text met, for lines past 65535 */
	enum table table;  /* of the node being read */
	unsigned seen;     /* the tables read: 1 << T_TIME, 1 << T_CPU */
	char other[64];    /* the first other table's schema, and its line */
	long other_line;
	bool by_weight;
	int io_rc;      /* the input's error, reported already */
	int pstate;     /* prolog()'s */
	uint64_t pline;
	uint64_t bytes;
	struct fk_input_limit lim;
	char err[256];  /* libxml2's first error */
	long err_line;
	xmlStructuredErrorFunc old_fn; /* libxml2's handler before xc_open */
	void *old_ctx;
};

/* The element and attribute names, as enum name orders them. */
extern const char *const xc_names[N_NAMES];

/* reader.c.  xc_open: the reader over c->in, libxml2's messages caught
 * (until xc_close); 0 or a negative status (reported).  xc_close frees it
 * and gives libxml2's messages back.  xc_line: the line of the node the
 * reader is on.  xc_fail: "FILE:LINE: message" at that line, FK_ERR_DATA.
 * xc_read: the next node, 1, 0 at the end or a negative status (reported).
 * xc_skip: past the element the reader is on.  xc_next_child: see reader.c. */
int xc_open(struct cx *c);
void xc_close(struct cx *c);
long xc_line(struct cx *c);
int xc_fail(struct cx *c, const char *fmt, ...) FK_PRINTF(2, 3);
int xc_read(struct cx *c);
int xc_skip(struct cx *c);
int xc_next_child(struct cx *c, int d, unsigned mask, bool text, int *kind);

#endif
