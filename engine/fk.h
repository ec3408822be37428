/*
 * flamekit engine internals.  Nothing here is part of the plugin SDK: plugins
 * see only include/flamekit/plugin.h and reach the engine through struct
 * fk_host.  The command sees only flamekit-engine.h (included here, the
 * public part); the tests link the engine as a static library.
 */
#ifndef FK_ENGINE_H
#define FK_ENGINE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "flamekit-engine.h"
#include "context.h"
#include "calls.h"

/* ---- logging internals (log.c) -------------------------------------------- */
/* fk_log without the context's prefix (an input's own data errors:
 * "FILE:LINE: message"); it marks and is silenced as fk_log is. */
void fk_log_bare(int level, const char *fmt, ...) FK_PRINTF(2, 3);
/* Tests capture messages: when set, each formatted line (without
 * "flamekit: " and newline) goes here instead of stderr. */
extern void (*fk_log_hook)(int level, const char *line);

/* ---- hashing ------------------------------------------------------------ */
uint64_t fk_hash(const void *p, size_t n);

/* ---- interning (intern.c) ----------------------------------------------
 * Frame name -> dense id.  Names live in an arena and never move, so a
 * returned pointer stays valid until fk_intern_free.  The full name includes
 * any annotation suffix; display_len excludes it.
 */
struct fk_frame_info {
	const char *name;    /* arena pointer, NUL-terminated */
	uint32_t len;
	uint32_t display_len;
	uint8_t annot;       /* enum fk_annot */
	int32_t colour;      /* index into the colour table, -1 for none */
	uint32_t module;     /* frame id of the module name, FK_FRAME_NONE */
};

struct fk_intern {
	struct fk_frame_info *frames;
	uint32_t nframes, capframes;
	uint64_t *slots;     /* open addressing: hash << 32 | frame id + 1, 0 = empty */
	uint32_t mask;
	char **chunks;       /* arena */
	size_t nchunks, chunk_used, chunk_cap;
	char **colours;      /* colour strings */
	size_t ncolours;
};

int fk_intern_init(struct fk_intern *in);
void fk_intern_free(struct fk_intern *in);
/* Intern name[0..len) (the full name, suffix included).  Returns the id or
 * FK_FRAME_NONE when out of memory. */
fk_frame_t fk_intern(struct fk_intern *in, const char *name, size_t len);
/* The same with the name's hash already computed by fk_intern_hash.
 * fk_intern_prefetch brings what a lookup of hash h will read into the
 * cache, one level per stage (0: the slot, 1: the frame, 2: its name): a
 * caller with several names runs each stage over all of them before
 * interning, so their cache misses overlap instead of queueing. */
uint32_t fk_intern_hash(const char *name, size_t len);
fk_frame_t fk_intern_hashed(struct fk_intern *in, const char *name, size_t len, uint32_t h);
void fk_intern_prefetch(const struct fk_intern *in, uint32_t h, int stage);
/* Intern name with annotation `annot`: appends its suffix first. */
fk_frame_t fk_intern_annot(struct fk_intern *in, const char *name, size_t len, int annot);
/* Look up without inserting. */
fk_frame_t fk_intern_find(const struct fk_intern *in, const char *name, size_t len);
int fk_intern_set_colour(struct fk_intern *in, fk_frame_t f, const char *colour);
const char *fk_intern_colour(const struct fk_intern *in, fk_frame_t f);
/* Suffix text for an annotation ("_[k]"), "" for none. */
const char *fk_annot_suffix(int annot);
/* Which annotation a full name carries (by its suffix). */
int fk_annot_of(const char *name, size_t len);

/* ---- stack tree (tree.c) ------------------------------------------------
 * A prefix tree: node = (parent, frame), children found through one hash
 * table keyed on (parent, frame).  Node ids are dense and a parent always
 * has a smaller id than its children.  Each node holds self weights for
 * FK_SERIES_MAX series; totals are computed by fk_tree_finish().
 */
struct fk_node {
	uint32_t parent;
	uint32_t frame;
	uint32_t depth;
	uint32_t wi;         /* index into fk_tree.w: a sample ended here; FK_NO_WEIGHT if not */
};
#define FK_NO_WEIGHT UINT32_MAX

/* 16 bytes a node: most nodes of a big tree are inner nodes, so the
 * weights live in a side array that only leaves (stack ends) use. */
struct fk_tree {
	struct fk_node *nodes;
	uint32_t nnodes, capnodes;
	double (*w)[FK_SERIES_MAX]; /* self weights of leaves */
	uint32_t nw, capw;
	uint64_t *slots;     /* hash tag << 32 | node id, 0 = empty (the root is
	                      * never a child); freed by fk_tree_finish and
	                      * rebuilt when needed */
	uint32_t mask;
	/* filled by fk_tree_finish(): */
	double *total;       /* nnodes * FK_SERIES_MAX */
	uint32_t *kid_start; /* nnodes + 1 */
	uint32_t *kids;      /* nnodes - 1 entries */
	bool finished;
};

/* Whether a sample ended at n (even with zero weight), and its weights. */
static inline bool fk_node_leaf(const struct fk_tree *t, uint32_t n)
{
	return t->nodes[n].wi != FK_NO_WEIGHT;
}
static inline double fk_node_self(const struct fk_tree *t, uint32_t n, int s)
{
	uint32_t wi = t->nodes[n].wi;
	return wi == FK_NO_WEIGHT ? 0 : t->w[wi][s];
}
static inline double *fk_node_selfv(struct fk_tree *t, uint32_t n)
{
	uint32_t wi = t->nodes[n].wi;
	return wi == FK_NO_WEIGHT ? NULL : t->w[wi];
}

int fk_tree_init(struct fk_tree *t);
void fk_tree_free(struct fk_tree *t);
/* Child of `parent` for `frame`, created when missing.  FK_NODE_NONE on
 * out of memory. */
fk_node_t fk_tree_child(struct fk_tree *t, fk_node_t parent, fk_frame_t frame);
fk_node_t fk_tree_find_child(const struct fk_tree *t, fk_node_t parent, fk_frame_t frame);
/* The node of stack f[0..n) (root first), created as needed: fk_tree_child
 * down the stack, faster for the new part.  FK_NODE_NONE on out of memory
 * or past the node limit. */
fk_node_t fk_tree_insert(struct fk_tree *t, const fk_frame_t *f, size_t n);
/* The same below `node`, storing each node of the path in ids[0..n) when
 * ids is not NULL. */
fk_node_t fk_tree_insert_at(struct fk_tree *t, fk_node_t node, const fk_frame_t *f, size_t n,
                            fk_node_t *ids);
/* Add weights at a node and mark it a leaf.  FK_ERR_NOMEM on failure. */
int fk_tree_add(struct fk_tree *t, fk_node_t n, const double *w);
/* Compute totals and the sorted child lists (names from `in`). */
int fk_tree_finish(struct fk_tree *t, const struct fk_intern *in);
/* Frames of node n, root first, into *out (grown as needed). */
int fk_tree_path(const struct fk_tree *t, fk_node_t n, fk_frame_t **out, size_t *cap, size_t *len);

/* ---- sample attributes (attrs.c) -----------------------------------------
 * Keys, values and thread names interned once (strs), each distinct
 * attribute list once (attrs[start[i] .. start[i+1]), pointers into strs);
 * list 0 is the empty list.  Set up on first use.  Returned pointers stay
 * valid until fk_attrtab_free.
 */
#define FK_ATTRS_NONE UINT32_MAX
struct fk_attrtab {
	bool ready;
	struct fk_intern strs;
	struct fk_attr *attrs;
	size_t nattrs, capattrs;
	uint32_t *start;     /* nlists + 1 entries (room for caplists + 1) */
	uint32_t nlists, caplists;
	uint32_t *slots;     /* list id, 0 = empty (list 0 is never hashed) */
	uint32_t mask;
};
void fk_attrtab_free(struct fk_attrtab *t);
/* The id of list a[0..n) (0 for an empty one), FK_ATTRS_NONE when out of
 * memory.  The strings are copied. */
uint32_t fk_attrs_intern(struct fk_attrtab *t, const struct fk_attr *a, size_t n);
/* List `id` into *out; its length. */
size_t fk_attrs_get(const struct fk_attrtab *t, uint32_t id, const struct fk_attr **out);
/* A thread name's id (FK_FRAME_NONE when out of memory), and back. */
fk_frame_t fk_attrs_string(struct fk_attrtab *t, const char *s, size_t n);
const char *fk_attrs_string_text(const struct fk_attrtab *t, fk_frame_t id, size_t *len);
/* The value of the first attribute of a[0..n) named key, NULL if none. */
const char *fk_attrs_find(const struct fk_attr *a, size_t n, const char *key, size_t key_len,
                          size_t *len);

/* ---- sample log ---------------------------------------------------------- */
/* What the log keeps of a sample beside struct fk_logged_sample (which is
 * frozen in the ABI): ids into the profile's attribute table. */
struct fk_logged_extra {
	uint32_t attrs;      /* attribute list id, 0 for none */
	fk_frame_t comm;     /* thread name id, FK_FRAME_NONE for none */
};
struct fk_samplelog {
	struct fk_logged_sample *v;
	struct fk_logged_extra *x; /* parallel to v */
	size_t n, cap;
};

/* ---- filters in the pipeline (filter.c) ---------------------------------- */
struct fk_plugin;
struct fk_filter_inst {
	const struct fk_plugin *plugin;
	void *state;
	void *opts;
	char *where;
	/* per-frame results, indexed by frame id of `cache_owner`:
	 * 0 = not asked yet, else mapped id + 1 (FK_FRAME_NONE + 1 = 0 is never
	 * stored: a drop is kept as DROP) */
	uint32_t *cache;
	size_t cachecap;
	const struct fk_profile *cache_owner;
	unsigned uses;       /* enum fk_filter_uses: callbacks this instance runs */
};

/* ---- profile and sinks (profile.c) --------------------------------------- */
struct fk_profile {
	struct fk_intern in;
	struct fk_tree tree;
	struct fk_samplelog log;
	struct fk_attrtab attrs; /* the log's attribute lists and thread names */
	bool keep_samples;
	unsigned series_mask;
	char *unit[FK_SERIES_MAX];
	char *declared;      /* the unit the input being parsed declared last (the
	                      * pipeline's mixed-units warning); owned, reset per input */
	uint64_t samples_pushed;
	int64_t start_ns;    /* the capture's wall-clock start (ns since the
	                      * epoch), the earliest an input gave, when has_start */
	bool has_start;
};
/* host->sink_set_start_time, and its merge: keep the earlier of the two. */
void fk_profile_set_start(struct fk_profile *p, int64_t unix_ns);

struct fk_sink {
	struct fk_profile *p;        /* the profile this sink fills */
	struct fk_sink *parent;      /* NULL for a root sink */
	int series;                  /* where plain weights go */
	unsigned threads;
	struct fk_filter_chain *filters; /* per-sample filters (root sink only) */
	/* The input's own steps (its demangling, per-frame), run before
	 * `filters` at push time, when there are per-sample filters; NULL
	 * otherwise (the steps then run on the input's profile once it is
	 * read).  Not owned. */
	struct fk_filter_chain *pre;
	/* The input the samples come from, for messages (the pipeline's, not
	 * owned; forks inherit it); NULL: "an input". */
	const char *name;
	/* A sample time beyond FK_TIME_NS_LIMIT was reported (root sink's,
	 * set once by any fork, so a parse reports it once). */
	int time_refused;
	/* The plugins of the pipeline parsing into this sink (forks inherit
	 * it), for host->parse_parts; NULL where no registry is at hand. */
	const struct fk_registry *reg;
	/* scratch */
	fk_frame_t *ids;             /* idcap of them; filters grow ids alone */
	uint32_t *hashes;            /* of the frames being pushed, hashcap of them */
	size_t idcap, hashcap;
	int status;                  /* first error from a filter */
};

struct fk_profile *fk_profile_new(void);
void fk_profile_free(struct fk_profile *p);
/* Merge src into dst (frames re-interned, weights summed, samples appended). */
int fk_profile_merge(struct fk_profile *dst, const struct fk_profile *src);
/* Where src's frames and nodes stand in dst, once fk_profile_map made them
 * there: frames[id in src] (src->in.nframes + 1 entries) and nodes[node in
 * src] (src->tree.nnodes). */
struct fk_profile_map {
	fk_frame_t *frames;
	fk_node_t *nodes;
};
/* The first step of a merge: src's frames interned into dst and src's nodes
 * made in dst's tree, no weight added.  0, or FK_ERR_NOMEM with dst holding
 * part of src.  Either way *map is the caller's to fk_profile_map_free. */
int fk_profile_map(struct fk_profile *dst, const struct fk_profile *src,
                   struct fk_profile_map *map);
void fk_profile_map_free(struct fk_profile_map *map);
/* Nothing pushed, interned or logged into p yet. */
bool fk_profile_empty(const struct fk_profile *p);
/* Merge src into dst as fk_profile_merge does; when dst is still empty,
 * src's contents move into dst instead (src is left empty, to be freed). */
int fk_profile_absorb(struct fk_profile *dst, struct fk_profile *src);
/* Apply per-frame filters: rebuild the tree with renamed/dropped frames. */
int fk_profile_apply_frame_filters(struct fk_profile **pp, struct fk_filter_chain *fc);
struct fk_profile *fk_profile_reversed(const struct fk_profile *p);
int fk_profile_finish(struct fk_profile *p);

int fk_sink_init(struct fk_sink *s, struct fk_profile *p, int series, unsigned threads,
                 struct fk_filter_chain *filters);
void fk_sink_fini(struct fk_sink *s);
/* host->sink_fork: an empty sink of a profile of its own for another
 * thread (its sample log kept as s's is), with s as its parent; NULL
 * without memory.  Freed by fk_sink_join. */
struct fk_sink *fk_sink_fork(struct fk_sink *s);
/* host->sink_join: merge child into parent (its contents moved when
 * parent's profile is still empty), or only free it when parent is NULL;
 * 0 or FK_ERR_NOMEM (child is freed either way).  Join in input order:
 * the merge order is the sample log's order. */
int fk_sink_join(struct fk_sink *parent, struct fk_sink *child);
int fk_sink_push(struct fk_sink *s, const struct fk_sample *smp, fk_node_t *node);
int fk_sink_push_node(struct fk_sink *s, fk_node_t node, const struct fk_sample *smp);
/* host->push_child */
int fk_sink_push_child(struct fk_sink *s, fk_node_t parent, const struct fk_frameref *fr,
                       fk_node_t *node);
/* host->push_ext: push (known FK_NODE_NONE) or push_node, with attributes. */
int fk_sink_push_ext(struct fk_sink *s, fk_node_t known, const struct fk_sample *smp,
                     const struct fk_sample_ext *ext, fk_node_t *out);

/* ---- input streams (input.c) --------------------------------------------- */
struct fk_input {
	char *name;          /* as given ("-" shown as "<stdin>") */
	int fd;
	void *gz;            /* gzFile when compressed */
	bool eof;
	char *buf;
	size_t cap, start, end;
	uint64_t lineno;     /* number of the last line returned */
	uint64_t bytes;      /* bytes consumed so far (uncompressed) */
	uint64_t skipped;    /* lines skipped */
	uint64_t skipped_first[5];
	int error;           /* status of the first fatal error reported */
	bool progress;       /* print progress to stderr */
	double t0, last_progress;
	/* A regular uncompressed file, and its size.  Every input
	 * is read with read(): mapping the file was tried and was slower
	 * (each newly mapped page costs a fault, dear on a virtual machine;
	 * the buffer read() fills is faulted in once). */
	bool regular;
	uint64_t fsize;
	/* A chunk of a bigger input parsed on a worker thread: the first fatal
	 * error is kept (line relative to the chunk) instead of printed. */
	bool chunk;
	uint64_t err_line;
	char *err_msg;
	/* Sharding: when `limited`, at most `limit` more raw bytes are read
	 * from fd (the end of this shard's byte range). */
	bool limited;
	uint64_t limit;
	uint64_t shard_start; /* file offset of the first byte (host->input_start) */
	/* A part of host->parse_parts: like a chunk, the first fatal error is
	 * kept instead of printed, but the buffer and name are the input's own. */
	bool defer_errors;
	bool err_lost;       /* a kept error's text could not be copied (memory) */
	/* Lines counted as bytes arrive (fk_input_count_lines), whether the
	 * plugin reads them with getline or with read. */
	bool count_lines;
	uint64_t newlines;
	int last_byte;       /* -1 before the first byte */
	/* The plugin parsing this input, when the pipeline knows it: its sync()
	 * lets host->parse_chunks cut a regular file into ranges. */
	const struct fk_plugin *plugin;
	/* A range of host->parse_chunks (parallel.c): read with pread() at the
	 * range's own offset, up to its end, which another worker may move
	 * back by taking the range's tail. */
	struct fk_range *range;
	/* The call parsing this input (fk_parse_input's context, borrowed),
	 * NULL for none: an error reported on it marks that call, whatever
	 * thread reports it (a plugin's own thread included). */
	struct fk_ctx *ctx;
	/* enum fk_demangle_choice: the user's choice for this input's names
	 * (host->input_demangle), FK_DMG_PLUGIN when none was made */
	int demangle;
};

/* How one input is read.  `merge`, which holds many inputs open at once,
 * asks for small buffers. */
struct fk_input_params {
	size_t bufsize;      /* initial read buffer (lines longer grow it); 0: 1 MiB */
};
/* An input over file descriptor fd (owned: closed by fk_input_close), read
 * as it comes: no gzip detection, since peeking at a pipe
 * would wait for its writer.  Returns FK_ERR_NOMEM (fd then closed). */
int fk_input_open_fd(struct fk_input *in, int fd, const char *name);
/* Open a file ("-" = stdin); reports the error itself and, when it fails,
 * leaves nothing to close.  params may be NULL for the defaults. */
int fk_input_open_with(struct fk_input *in, const char *path, const struct fk_input_params *params);
int fk_input_open(struct fk_input *in, const char *path);
/* An input over a memory buffer (tests, probes).  The buffer is copied. */
int fk_input_open_mem(struct fk_input *in, const char *name, const void *data, size_t len);
void fk_input_close(struct fk_input *in);
/* parts.c: host->parse_parts */
int fk_parse_parts(const char *plugin, const char *const *optnames, const char *const *optvalues,
                   size_t nopts, struct fk_input *const *ins, size_t n, struct fk_sink *sink);
/* parts.c: host->parse_streams */
int fk_parse_streams(struct fk_input *const *ins, size_t n, struct fk_sink *sink,
                     const struct fk_part_ops *ops, void *ctx);
/* parallel.c: host->parse_chunks */
int fk_parse_chunks(struct fk_input *in, struct fk_sink *sink, const struct fk_chunk_ops *ops, void *ctx);
/* parallel.c: the next bytes of a range (at most cap), 0 at its end;
 * *off is their file offset.  Then the caller preads them itself. */
size_t fk_range_claim(struct fk_range *r, size_t cap, uint64_t *off);
/* parallel.c: the range's file ended early at `off` (a short pread). */
void fk_range_short(struct fk_range *r, uint64_t off);
/* parallel.c: bytes of the range not yet read. */
uint64_t fk_range_left(struct fk_range *r);
/* input.c: `n` more bytes of `in` were read elsewhere (for --progress). */
void fk_input_note_read(struct fk_input *in, uint64_t n);
/* The record boundary input plugin pl's sync() finds at or after offset o
 * (0 < o < end) of the file behind fd (what --shard and parse_chunks' ranges cut at):
 * windows start at o - 1 and double until sync() answers or the window
 * reaches `end`, or passes `max` when max is not 0.  Returns 1 with *cut
 * (the end of what was read when that is reached unanswered), 0 when `max`
 * was passed first, FK_ERR_DATA when sync() finds no boundary it can cut
 * at, FK_ERR_IO (errno set) or FK_ERR_NOMEM; it reports nothing. */
int fk_sync_cut(int fd, const struct fk_plugin *pl, uint64_t o, uint64_t end, size_t max,
                uint64_t *cut);
/* Restrict `in` (just opened, maybe peeked at) to shard k of n: the byte
 * range between the sample boundaries that plugin pl's sync() finds near
 * k*size/n and (k+1)*size/n.  The input must be an uncompressed regular
 * file and pl must have sync; otherwise an error naming the reason is
 * reported.  The input is renamed "PATH[k/n]" and counts lines from the
 * start of its range. */
int fk_input_shard(struct fk_input *in, const struct fk_plugin *pl, unsigned k, unsigned n);
/* Count the lines of the whole input from now on, those already
 * buffered included, as bytes arrive from the source: a
 * plugin that splits lines itself (read) leaves lineno alone.  When the
 * input has been read to its end, fk_input_lines gives its line count (a
 * last line without '\n' included). */
void fk_input_count_lines(struct fk_input *in);
uint64_t fk_input_lines(const struct fk_input *in);
/* host->input_head: the first bytes of the file behind `in` (pread at 0). */
ssize_t fk_input_head(const struct fk_input *in, void *buf, size_t cap);
/* Bytes still to come (buffered ones included) from a regular
 * uncompressed file, a shard or a chunk; UINT64_MAX when not known. */
uint64_t fk_input_left(const struct fk_input *in);
/* Peek at up to `cap` first bytes without consuming them. */
ssize_t fk_input_peek(struct fk_input *in, size_t cap, const unsigned char **data);
int fk_input_getline(struct fk_input *in, const char **line, size_t *len);
/* host->input_peek and host->input_consume (see plugin.h). */
int fk_input_buffered(struct fk_input *in, const char **data, size_t *len);
int fk_input_consume(struct fk_input *in, size_t len, uint64_t lines);
ssize_t fk_input_read(struct fk_input *in, void *buf, size_t cap);
int fk_input_error(struct fk_input *in, uint64_t line, const char *fmt, ...) FK_PRINTF(3, 4);
void fk_input_skip(struct fk_input *in, uint64_t line);
/* Report the skipped-line summary (a warning) if any were skipped. */
void fk_input_report(struct fk_input *in);

/* ---- where outputs go (outpath.c) --------------------------------------- */
struct fk_outpath {
	int dirfd;      /* O_PATH descriptor of the directory holding name, or -1 */
	char *name;     /* the last component, in dirfd */
	char *dir;      /* that directory as walked ("" for the current one) */
	bool proc;      /* name is a link on procfs (/proc/self/fd/1): open it, never replace it */
};
/* Walk path to the directory and name its bytes go to, following a
 * symbolic link only where fs.protected_symlinks' rule lets the caller,
 * whatever the sysctl says (see outpath.c).  0, or FK_ERR_NOMEM / FK_ERR_IO
 * reported naming path (and the refused link and its owner) unless quiet;
 * op is then empty.  Free op with fk_outpath_free. */
int fk_outpath_walk(const char *path, struct fk_outpath *op, bool quiet);
void fk_outpath_free(struct fk_outpath *op);
/* Create "NAME.tmp.XXXXXX" in dirfd, mode 0600, exclusively, and register
 * it for removal by SIGINT, SIGTERM and SIGHUP (which then exit with 128 +
 * the signal).  Returns the fd, *tmp (fk_malloc'd name) and *slot for
 * fk_temp_forget; -1 with errno set.  dirfd must stay open until forgotten. */
int fk_temp_create(int dirfd, const char *name, char **tmp, void **slot);
/* The temporary is renamed or removed: a signal leaves it alone. */
void fk_temp_forget(void *slot);

/* ---- output streams (writer.c) ------------------------------------------- */
struct fk_writer {
	char *path;          /* the path given, NULL for stdout (for messages) */
	struct fk_outpath at; /* where: path walked, its links judged (see outpath.c) */
	char *tmp;           /* temporary's name in at.dirfd; NULL when direct */
	void *slot;          /* its registration for removal on a signal */
	bool direct;         /* a device, FIFO, socket or /proc fd link: written in place */
	int fd;
	char *buf;
	size_t len, cap;
	int error;           /* first write error (negative status), reported once */
	bool epipe;          /* stdout reader went away */
	bool finished;       /* fk_writer_finish done: only the rename is left */
	struct fk_writer *sides; /* side outputs (fk_writer_side), committed with this one */
	/* A side output: its writer, the next side of that writer, the next
	 * side output pending in the process; its bytes are kept in buf
	 * until it is finished (fk_writer_side_pending reads them). */
	struct fk_writer *parent, *next, *next_pending;
};

/* Open for writing: path NULL or "-" writes stdout.  A path that is not a
 * regular file (device, FIFO, socket, or a /proc/N/fd link) is opened and
 * written in place, never truncated when it is a device; a symlink is
 * followed where fk_outpath_walk allows it (refused otherwise, nothing
 * written) and its target replaced through a temporary beside it (the link
 * stays a link); a replaced file keeps its permission bits, and its owner
 * and group when we may set them. */
int fk_writer_open(struct fk_writer *w, const char *path);
/* A side output of w (host->side_output, the --cp palette): opened as
 * fk_writer_open does, into *side, which w owns; finished, committed and
 * aborted with w, so it is written only when w is. */
int fk_writer_side(struct fk_writer *w, const char *path, struct fk_writer **side);
/* host->side_pending: the bytes written so far to the pending side output
 * of path (however spelled), NULL when there is none. */
const char *fk_writer_side_pending(const char *path, size_t *len);
/* Would writing path replace the file (dev, ino)?  By inode, links
 * followed: "./x", "d/../x" and a link to x all are x. */
bool fk_output_replaces(const char *path, dev_t dev, ino_t ino);
/* Do paths a and b name the same output file, however spelled ("x",
 * "./x", "d/../x", a symlink to x)?  "-" (stdout) is never the same as
 * anything: several outputs may share it. */
bool fk_output_same(const char *a, const char *b);
int fk_writer_write(struct fk_writer *w, const void *p, size_t n);
int fk_writer_printf(struct fk_writer *w, const char *fmt, ...) FK_PRINTF(2, 3);
int fk_writer_vprintf(struct fk_writer *w, const char *fmt, va_list ap);
/* Flush, fsync-less close and rename into place.  On failure the final
 * path is untouched and the temporary file removed. */
int fk_writer_commit(struct fk_writer *w);
/* Flush and close a file output, keeping it under its temporary name, so
 * that several outputs can all be finished before any is renamed
 * (fk_writer_commit then only renames).  No-op for stdout. */
int fk_writer_finish(struct fk_writer *w);
/* Drop everything written; the final path is untouched. */
void fk_writer_abort(struct fk_writer *w);

/* ---- plugins: the loader's internals (plugin.c) ---------------------------- */
/* Load one module file; 0, or a negative status after a warning. */
int fk_registry_load(struct fk_registry *r, const char *path);
/* Add a plugin compiled into the program (its descriptor, as its renamed
 * flamekit_plugin_init returns it), checked as a module would be; `name`
 * stands for its file in messages and `flamekit plugins`.  The fuzzing
 * harnesses use it to hold several plugins without dlopen. */
int fk_registry_add_builtin(struct fk_registry *r, const struct fk_plugin_header *hd,
                            const char *name);
/* ---- options: the loader's and the job's (options.c) ----------------------- */
/* Set FK_OPT_VALUE option `name` to tree v, which the options struct then
 * owns (also on error: FK_ERR_INTERNAL when name is no VALUE option). */
struct fk_value;
int fk_option_set_value(const struct fk_plugin *pl, void *opts, const char *name,
                        struct fk_value *v);
/* Split the option flags (FK_OPT_CMDLINE_ONLY) off the types of pl's
 * table, into pl->own_options and pl->optflags; the loader calls it on
 * its copy of the descriptor.  0, FK_ERR_NOMEM, or FK_ERR_PLUGIN with one
 * sentence in err (an unknown flag, or a table with no end). */
int fk_options_adopt(struct fk_plugin *pl, char *err, size_t errlen);
/* Whether option o of pl may be set only from the command line. */
bool fk_option_cmdline_only(const struct fk_plugin *pl, const struct fk_option *o);
/* The loader's check of an option table: names, types, offsets within
 * options_size, defaults.  0, or FK_ERR_PLUGIN with one sentence (no file
 * name) in err. */
int fk_options_validate(const struct fk_plugin *pl, char *err, size_t errlen);
/* fk_options_check, which runs a plugin's check callback: calls.h. */
/* "a, b, c" of a plugin's option names (for "unknown key" messages). */
int fk_option_names(const struct fk_plugin *pl, struct fk_buf *out);
/* ---- the host table (host.c) ----------------------------------------------- */
extern const struct fk_host fk_host;

/* ---- filters (filter.c) ----------------------------------------------------- */
/* Map frame f of p through filter k's per-frame callback (cached).  *out is
 * the new frame id, or FK_FRAME_NONE when the filter drops it. */
int fk_filter_map_frame(struct fk_filter_chain *fc, size_t k, struct fk_profile *p,
                        fk_frame_t f, fk_frame_t *out);
/* Run per-sample filters on a stack of frame ids (edited in place). Returns
 * 1 to keep, 0 to drop, negative on error. */
int fk_filter_samples(struct fk_filter_chain *fc, struct fk_profile *p,
                      fk_frame_t **ids, size_t *n, size_t *cap, double *w,
                      const struct fk_logged_sample *meta, const char *comm, size_t comm_len,
                      const struct fk_attr *attrs, size_t nattrs);

/* ---- demangling internals (demangle.c) ------------------------------------ */
/* "no", "full" or "short" for an enum fk_demangle. */
const char *fk_demangle_name(int d);
struct fk_input_spec;
/* The steps of the input `spec`, read by plugin pl, into *steps (an empty
 * chain when its names stay as they are): the demangle filter plugin in
 * the style spec or pl chose.  An input left to its plugin's default is
 * not demangled when `filters`, the pipeline's chain, has the demangle
 * filter of its own (a job's), nor when no demangle filter plugin is
 * loaded (said with -v); a demangling asked for without one is an error.
 * `name` names the input in messages.  0 or a negative status, reported;
 * the caller frees *steps (fk_filter_chain_free) in every case. */
int fk_input_steps(const struct fk_registry *r, const struct fk_input_spec *spec,
                   const struct fk_plugin *pl, const struct fk_filter_chain *filters,
                   const char *name, struct fk_filter_chain *steps);

/* ---- pipeline internals (pipeline.c) -------------------------------------- */
/* Open input `path` for the call of context cx (its instance, in's
 * context), showing progress as struct fk_pipeline's says, and refuse
 * UTF-16 text by name whatever the format.  0, or a negative status
 * (reported) with nothing left open. */
int fk_input_start(struct fk_input *in, const char *path, struct fk_ctx *cx, int progress);
/* Pick the input plugin for the first bytes of `in`; reports an error
 * listing the formats tried when none fits. */
int fk_detect(const struct fk_registry *r, struct fk_input *in, const struct fk_plugin **out);
/* Parse one input into p (series as given). */
int fk_parse_input(const struct fk_registry *r, const struct fk_input_spec *spec,
                   struct fk_profile *p, struct fk_filter_chain *filters,
                   unsigned threads, int progress);
/* The output half of fk_pipeline_run, for commands that build the profile
 * themselves (diff): finish p, render every output of pl, commit them
 * all or none.  p stays owned by the caller. */
int fk_pipeline_render(struct fk_pipeline *pl, struct fk_profile *p);

/* ---- misc ------------------------------------------------------------------ */
double fk_now(void);
/* Format a weight the way the stackcollapse scripts print counts:
 * integers without a decimal point, fractions with up to 15 significant
 * digits and no trailing zeros.  Returns the length written to buf (>= 32). */
int fk_format_weight(char *buf, size_t cap, double w);

#endif
