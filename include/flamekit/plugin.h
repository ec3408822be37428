/*
 * flamekit plugin SDK: the only header a plugin needs.
 *
 * A plugin is a libtool module (-module -avoid-version) exporting exactly one
 * symbol, flamekit_plugin_init(), which the FLAMEKIT_REGISTER_* macros below
 * write for you.  Plugins never link against the engine: every service they
 * use (logging, memory, reading input, pushing samples, walking the merged
 * tree) reaches them through the const struct fk_host table passed to each
 * callback.
 *
 * This header is the contract: each declaration says what a caller may
 * rely on.  The prose (how to write, build and install a plugin, the ABI
 * history, examples) is in flamekit-plugin(3) for the descriptors and
 * flamekit-host(3) for the host table.
 *
 * ABI: FK_ABI_MAJOR.FK_ABI_MINOR, recorded in every descriptor by the
 * FLAMEKIT_REGISTER_* macros.  A minor bump only appends: fields at the end
 * of the structs that carry a struct_size (the three descriptors, struct
 * fk_host, struct fk_sample_ext), enum values at the end, macros, typedefs;
 * a new field's zero value means "absent / the old behaviour".  Anything
 * else is a major bump.  The loader refuses another major; it loads an
 * older minor with the fields it lacks zeroed, and a newer minor with the
 * fields it does not know ignored, so a plugin checks FK_HOST_HAS(host,
 * member) before using a host service added after 1.0.
 *
 * Threads (nbdkit's model): every callback runs on one thread at a time,
 * except the chunk_ops parse of host->parse_chunks and the parse of a
 * plugin run by host->parse_parts with n > 1, which run on several worker
 * threads at once, each with its own input and forked sink.  log, alloc,
 * realloc, free and the value_* accessors are thread-safe; input and sink
 * services are safe on distinct objects at once; the profile readers are
 * read-only; edit handles (fe_*, se_*) live only inside the callback that
 * received them.
 *
 * Ownership: strings passed into the host are copied; strings the host
 * returns stay valid as each member says.
 *
 * The header is C99 and compiles as C++; its compile-time type checks need
 * GCC or Clang.
 */
#ifndef FLAMEKIT_PLUGIN_H
#define FLAMEKIT_PLUGIN_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

#define FK_PLUGIN_MAGIC 0x4c504b46u /* "FKPL" little-endian */
#define FK_ABI_MAJOR 1
#define FK_ABI_MINOR 10

#if defined(__GNUC__)
#define FK_PRINTF(f, a) __attribute__((format(printf, f, a)))
#define FK_EXPORT __attribute__((visibility("default")))
#else
#define FK_PRINTF(f, a)
#define FK_EXPORT
#endif

/* Status codes: 0 or one of these negatives.  Append-only. */
enum fk_status {
	FK_OK = 0,
	FK_ERR_NOMEM = -1,   /* allocation failed */
	FK_ERR_IO = -2,      /* read or write failed */
	FK_ERR_DATA = -3,    /* input data could not be used */
	FK_ERR_USAGE = -4,   /* bad option or argument */
	FK_ERR_PLUGIN = -5,  /* plugin could not be loaded or misbehaved */
	FK_ERR_SCRIPT = -6,  /* a filter script failed */
	FK_ERR_LIMIT = -7,   /* a configured limit was exceeded */
	FK_ERR_INTERNAL = -8,
};

enum fk_plugin_kind {
	FK_PLUGIN_INPUT = 1,
	FK_PLUGIN_FILTER = 2,
	FK_PLUGIN_OUTPUT = 3,
};

/* Whether host table h (a const struct fk_host *) has the function
 * member `member`: its struct_size covers it and it is set.  An engine
 * older than this header lacks the members appended after its minor
 * version, and reading past its table is undefined.  Check before calling
 * any member not in ABI 1.0 (h is evaluated more than once):
 *     if (FK_HOST_HAS(host, parse_chunks)) host->parse_chunks(...); */
#define FK_HOST_HAS(h, member)                                               \
	((h)->struct_size >= offsetof(struct fk_host, member) + sizeof((h)->member) && \
	 (h)->member != NULL)

/* Log levels for host->log(). */
enum fk_log_level { FK_LOG_ERROR = 0, FK_LOG_WARN = 1, FK_LOG_INFO = 2, FK_LOG_DEBUG = 3 };

/*
 * Options.  A plugin declares a struct holding its settings and a table
 * describing each member; the engine allocates the struct (options_size
 * bytes, zero-filled), fills the defaults, applies command-line or job-file
 * values (validating names and types against the table) and passes it,
 * read-only, to every callback.  The table ends with FK_OPTION_END.
 *
 * The loader checks the table when it loads the plugin, and refuses the
 * plugin (one sentence naming the option) when an option's type is unknown,
 * its member does not lie inside options_size bytes, its name breaks the
 * rule below or repeats another's, or its default is not a valid value.
 */
enum fk_opt_type {
	FK_OPT_END = 0,
	FK_OPT_FLAG,   /* int, 0 or 1; takes no value on the command line */
	FK_OPT_INT,    /* long long */
	FK_OPT_DOUBLE, /* double */
	FK_OPT_STRING, /* const char *, NULL when the default is NULL; owned by
	                * the engine, valid for the whole run */
	/* --- 1.2 --- */
	FK_OPT_PATH,   /* const char *, like STRING, but a relative path given
	                * in a job file is resolved against the job file's
	                * directory (on the command line and in the default: as
	                * given, i.e. against the current directory). "-" and
	                * absolute paths are kept as they are.  The engine does
	                * not open it: the plugin says in check() what is wrong. */
	FK_OPT_VALUE,  /* const struct fk_value *: a structured value (a job
	                * file's mapping or list, or a single text); read it with
	                * host->value_*.  NULL when not given.  Owned by the
	                * engine, valid for the whole run. */
};

/* --- 1.7 --- Flags or'ed into an option's type:
 * FK_OPTION(FK_OPT_STRING | FK_OPT_CMDLINE_ONLY, "perf", ...).
 * FK_OPT_CMDLINE_ONLY: only the command line (an option of the command,
 * or `flamekit run --set`) may set it; a job file that does is refused
 * at load time, so at `run --check` too, with job.yaml:LINE:COL and where
 * the setting belongs.  For an option that names a program to run or
 * code to load: a job file is data a colleague passes around, and must
 * not be able to choose what flamekit executes.  The help line should
 * say where else the value may come from (an environment variable). */
#define FK_OPT_CMDLINE_ONLY 0x10000
#define FK_OPT_FLAGS_MASK 0xffff0000u

struct fk_option {
	int type;            /* enum fk_opt_type, or'ed with FK_OPT_* flags (1.7) */
	const char *name;    /* "event-filter": lower-case letters, digits and
	                      * '-', starting with a letter; unique in the table */
	const char *def;     /* default as text, or NULL */
	size_t offset;       /* offsetof(struct my_opts, member) */
	const char *help;    /* one line */
};

/* A structured option value (FK_OPT_VALUE), opaque: see host->value_*. */
struct fk_value;

enum fk_value_type {
	FK_VALUE_NULL = 0,   /* ~, null or nothing */
	FK_VALUE_BOOL,       /* true or false (unquoted); text "true"/"false" */
	FK_VALUE_NUMBER,     /* an unquoted decimal number: -12, 3.5, 1e6 */
	FK_VALUE_STRING,     /* any other text, quoted or not */
	FK_VALUE_MAP,        /* keys (text, unique) and values, in file order */
	FK_VALUE_LIST,       /* values, in order */
};

/* FK_OPTION(type, name, default, struct, member, help): with GCC or Clang
 * the member's C type must match `type` (int for FLAG, long long for INT,
 * double for DOUBLE, const char * for STRING and PATH, const struct
 * fk_value * for VALUE) or the table does not compile: an int given to
 * FK_OPT_INT, which the engine writes as 8 bytes, is caught at build time. */
#if defined(__GNUC__) && !defined(__cplusplus)
#define FK__OPT_IS(st, member, T) \
	__builtin_types_compatible_p(__typeof__(((st *)0)->member), T)
#define FK__OPT_T(type) ((type) & 0xffff)
#define FK__OPT_TYPE_OK(type, st, member)                                        \
	((FK__OPT_T(type) == FK_OPT_FLAG && FK__OPT_IS(st, member, int)) ||       \
	 (FK__OPT_T(type) == FK_OPT_INT && FK__OPT_IS(st, member, long long)) ||  \
	 (FK__OPT_T(type) == FK_OPT_DOUBLE && FK__OPT_IS(st, member, double)) ||  \
	 ((FK__OPT_T(type) == FK_OPT_STRING || FK__OPT_T(type) == FK_OPT_PATH) && \
	  (FK__OPT_IS(st, member, const char *) || FK__OPT_IS(st, member, char *))) || \
	 (FK__OPT_T(type) == FK_OPT_VALUE && FK__OPT_IS(st, member, const struct fk_value *)))
/* sizeof(char[-1]) does not compile: "size of unnamed array is negative"
 * points at the FK_OPTION line whose member has the wrong type. */
#define FK__OPT_CHECK(type, st, member) \
	(0 * sizeof(char[FK__OPT_TYPE_OK(type, st, member) ? 1 : -1]))
#else
#define FK__OPT_CHECK(type, st, member) 0
#endif

#define FK_OPTION(type, name, def, st, member, help) \
	{ (type), (name), (def), offsetof(st, member) + FK__OPT_CHECK(type, st, member), (help) }
#define FK_OPTION_END { 0, NULL, NULL, 0, NULL }

/* Frame annotations, written as suffixes in folded text. */
enum fk_annot {
	FK_ANNOT_NONE = 0,
	FK_ANNOT_KERNEL = 1, /* _[k] */
	FK_ANNOT_JIT = 2,    /* _[j] */
	FK_ANNOT_INLINE = 3, /* _[i] */
	FK_ANNOT_WAKER = 4,  /* _[w] */
};

/* One frame as an input plugin hands it over.  Bytes are copied. */
struct fk_frameref {
	const char *name;   /* not NUL-terminated; any bytes, but the engine turns
	                     * ';' into ':' and '\n' into ' ' (folded text's separators) */
	size_t len;
	int annot;          /* enum fk_annot, appended as a suffix when not NONE */
	const char *module; /* optional ("libc.so.6", "[kernel]"), NULL when unknown */
	size_t module_len;
};

#define FK_SERIES_MAX 2

enum fk_sample_flags {
	FK_SAMPLE_TIME = 1u << 0,     /* time_ns is set */
	FK_SAMPLE_PID = 1u << 1,      /* pid is set */
	FK_SAMPLE_TID = 1u << 2,      /* tid is set */
	FK_SAMPLE_COMM = 1u << 3,     /* comm/comm_len are set */
	FK_SAMPLE_SERIES = 1u << 4,   /* weight[] gives every series explicitly
	                               * (two-column differential folded lines);
	                               * otherwise weight[0] goes to the sink's series */
};

/* One sample pushed by an input plugin.  Frames go root first. */
struct fk_sample {
	const struct fk_frameref *frames;
	size_t nframes;
	double weight[FK_SERIES_MAX];
	unsigned flags;       /* enum fk_sample_flags */
	int64_t time_ns;      /* less than 2^62 from 0: push refuses another */
	int32_t pid, tid;
	const char *comm;
	size_t comm_len;
};

/* 1.3: one attribute of a sample, a key and a value, both text of any
 * bytes (not NUL-terminated: the lengths count).  pprof labels ("worker" =
 * "a"), goroutine labels, anything an input knows about a sample that
 * struct fk_sample has no field for.  A sample may carry one key several
 * times (pprof allows it); order is kept.  Frozen: arrays of it are built
 * by plugins and by the engine. */
struct fk_attr {
	const char *key;
	size_t key_len;
	const char *value;
	size_t value_len;
};

/* 1.3: what a sample carries beyond struct fk_sample, handed to
 * host->push_ext.  It starts with its own size, so a later minor appends
 * fields here instead of to struct fk_sample (which has no struct_size):
 * the engine reads a field only when struct_size covers it.  Fill it with
 * FK_SAMPLE_EXT_INIT, then set what you have.  The engine copies what it
 * keeps (interned: one copy of each distinct attribute list, not one per
 * sample); the plugin may reuse the arrays when the call returns. */
struct fk_sample_ext {
	uint32_t struct_size;         /* sizeof(struct fk_sample_ext) */
	const struct fk_attr *attrs;  /* attrs[0 .. nattrs) */
	size_t nattrs;
};
#define FK_SAMPLE_EXT_INIT { (uint32_t)sizeof(struct fk_sample_ext), NULL, 0 }

/* A node handle in the merged stack tree.  0 is the root (no frame). */
typedef uint32_t fk_node_t;
/* A frame id from interning.  Stable for the life of the profile. */
typedef uint32_t fk_frame_t;

#define FK_NODE_ROOT ((fk_node_t)0)
#define FK_NODE_NONE ((fk_node_t)UINT32_MAX)
#define FK_FRAME_NONE ((fk_frame_t)UINT32_MAX)

/* A sample as the sample log keeps it (time-ordered outputs). */
struct fk_logged_sample {
	fk_node_t leaf;
	unsigned flags;       /* enum fk_sample_flags */
	int64_t time_ns;
	int32_t pid, tid;
	double weight[FK_SERIES_MAX];
};

/* Opaque engine objects. */
struct fk_input;    /* one input stream being parsed */
struct fk_sink;     /* where an input pushes samples; one per thread */
struct fk_profile;  /* the merged, filtered result an output renders */
struct fk_writer;   /* an output stream (temporary file renamed on success) */

/* Callbacks for host->parse_chunks. */
struct fk_chunk_ops {
	/* Offset just past the last complete record in buf[0..len), 0 when
	 * there is none (the engine then reads a bigger chunk).  At the end of
	 * the input the rest is passed whole, without asking. */
	size_t (*boundary)(void *ctx, const char *buf, size_t len);
	/* Parse one chunk on worker thread `worker` into `sink`. */
	int (*parse)(void *ctx, unsigned worker, struct fk_input *chunk, struct fk_sink *sink);
};

/* 1.4: callbacks for host->parse_streams. */
struct fk_part_ops {
	/* Parse part `part` (0 .. n-1) into `sink`: one call per part, the
	 * parts' calls at once on threads of their own. */
	int (*parse)(void *ctx, unsigned part, struct fk_input *in, struct fk_sink *sink);
	/* Optional: once, on the calling thread, after every part parsed
	 * without error and was joined into the caller's `sink`. */
	int (*finish)(void *ctx, struct fk_sink *sink);
};

/*
 * Filter editing handles.  A per-frame callback sees one distinct frame and
 * may rename it, drop it (from every stack) or set its colour.  A per-sample
 * callback sees one sample's stack and may drop the sample, cut or edit the
 * stack, or scale its weight.
 */
struct fk_frame_edit;
struct fk_sample_edit;

struct fk_host {
	uint32_t struct_size;
	uint16_t abi_major, abi_minor;

	/* Logging: one line, no trailing newline needed.  The engine prefixes
	 * "flamekit: [kind:name] " from the plugin it is calling. */
	void (*log)(int level, const char *fmt, ...) FK_PRINTF(2, 3);

	/* Memory.  alloc/realloc return NULL on failure (tests inject it). */
	void *(*alloc)(size_t size);
	void *(*realloc)(void *ptr, size_t size);
	void (*free)(void *ptr);

	/* --- reading input (input plugins) ---------------------------------
	 * getline: the next line without its '\n' (a trailing '\r' is removed
	 * too), valid until the next getline/read call.  Returns 1 with a line,
	 * 0 at end of input, or a negative status (the error is reported).
	 * read: raw bytes, for plugins that split input themselves; returns the
	 * byte count, 0 at the end, negative on error.  Do not mix the two on
	 * one input except that read() after getline() continues after the last
	 * line returned. */
	int (*getline)(struct fk_input *in, const char **line, size_t *len);
	ssize_t (*read)(struct fk_input *in, void *buf, size_t cap);
	const char *(*input_name)(const struct fk_input *in);
	uint64_t (*input_lineno)(const struct fk_input *in);
	/* Report a fatal data error as "FILE:LINE: message"; returns FK_ERR_DATA.
	 * LINE 0 omits the line number. */
	int (*input_error)(struct fk_input *in, uint64_t line, const char *fmt, ...) FK_PRINTF(3, 4);
	/* Count a skipped line; the engine reports the count and the first few
	 * line numbers once the input is done. */
	void (*input_skip)(struct fk_input *in, uint64_t line);

	/* --- pushing samples ----------------------------------------------
	 * push: intern the frames, run per-sample filters, add to the tree.
	 * On success *node (if not NULL) receives the stack's leaf node, which
	 * push_node() accepts to repeat the same stack cheaply (caches in
	 * parsers).  Nodes are per sink. */
	int (*push)(struct fk_sink *s, const struct fk_sample *smp, fk_node_t *node);
	int (*push_node)(struct fk_sink *s, fk_node_t node, const struct fk_sample *smp);
	/* Threads: how many threads this parse may use (1 when a filter needs
	 * samples in order).  fork makes an empty sink for a worker thread;
	 * join merges a forked sink into its parent (in the order joined, so
	 * join in input order) and frees it.  The plugin calls fork/join from
	 * the thread that called parse. */
	unsigned (*sink_threads)(struct fk_sink *s);
	struct fk_sink *(*sink_fork)(struct fk_sink *s);
	int (*sink_join)(struct fk_sink *parent, struct fk_sink *child);
	/* Give the unit of the weights this input pushes ("samples", "ns",
	 * "us", ...), for outputs that convert to time.  Optional. */
	void (*sink_set_unit)(struct fk_sink *s, const char *unit);

	/* --- reading the merged profile (output plugins) -------------------
	 * Node ids are dense: 0 .. nodes-1, parents before children.  The
	 * returned name pointers stay valid until render returns. */
	size_t (*nodes)(const struct fk_profile *p);
	fk_node_t (*node_parent)(const struct fk_profile *p, fk_node_t n);
	fk_frame_t (*node_frame)(const struct fk_profile *p, fk_node_t n);
	uint32_t (*node_depth)(const struct fk_profile *p, fk_node_t n);
	double (*node_self)(const struct fk_profile *p, fk_node_t n, int series);
	double (*node_total)(const struct fk_profile *p, fk_node_t n, int series);
	/* true when some pushed sample ended exactly at this node (even with a
	 * zero weight): folded output prints such a node. */
	int (*node_is_leaf)(const struct fk_profile *p, fk_node_t n);
	/* Children in flamegraph.pl order: sorted by the bytes of their full
	 * frame names (memcmp, unsigned), a shorter name before a longer one it
	 * is a prefix of.  *kids points into the profile and stays valid until
	 * render returns; the count is returned. */
	size_t (*node_children)(const struct fk_profile *p, fk_node_t n, const fk_node_t **kids);
	/* Frame ids are 0 .. frames-1 (see the 1.2 `frames` member).  Two
	 * ids never share a full name: the full name (with any _[k] suffix)
	 * is the frame's identity.  Two ids can share a display name (the
	 * name without the suffix): "read" and "read_[k]" are two frames.
	 * The pointers stay valid until render returns.  A full name is
	 * NUL-terminated at *len; a display name is the first *len bytes of
	 * the full name, so it is NOT terminated at *len. */
	const char *(*frame_name)(const struct fk_profile *p, fk_frame_t f, size_t *len);
	const char *(*frame_display)(const struct fk_profile *p, fk_frame_t f, size_t *len);
	int (*frame_annot)(const struct fk_profile *p, fk_frame_t f);
	/* Colour set by a filter, as "#rrggbb" or a palette name; NULL if none. */
	const char *(*frame_colour)(const struct fk_profile *p, fk_frame_t f);
	const char *(*frame_module)(const struct fk_profile *p, fk_frame_t f, size_t *len);
	/* Which series hold data (bit mask), and each series' label/unit. */
	unsigned (*series_mask)(const struct fk_profile *p);
	const char *(*series_unit)(const struct fk_profile *p, int series);
	/* Sample log (only when the output declared FK_OUTPUT_NEEDS_SAMPLES and
	 * an input pushed samples): in push order. */
	size_t (*samples)(const struct fk_profile *p);
	const struct fk_logged_sample *(*sample)(const struct fk_profile *p, size_t i);
	/* A copy of p with every stack reversed (leaf becomes root), owned by
	 * the caller, freed with profile_free.  NULL on allocation failure. */
	struct fk_profile *(*profile_reversed)(const struct fk_profile *p);
	void (*profile_free)(struct fk_profile *p);

	/* --- writing output -----------------------------------------------
	 * write and printf buffer the bytes and return 0, or a negative status
	 * once a write has failed (disk full, closed pipe): the engine has
	 * then reported the error itself, once, naming the file, and every
	 * later call fails the same way without writing.  A render may check
	 * each call or only the last one; either way it returns the status
	 * without logging it again.  The output is renamed into place only
	 * when render returned 0 and no write failed. */
	int (*write)(struct fk_writer *w, const void *buf, size_t len);
	int (*printf)(struct fk_writer *w, const char *fmt, ...) FK_PRINTF(2, 3);
	const char *(*writer_name)(const struct fk_writer *w);

	/* --- filters ------------------------------------------------------- */
	/* frame edits */
	const char *(*fe_name)(const struct fk_frame_edit *e, size_t *len);
	int (*fe_annot)(const struct fk_frame_edit *e);
	const char *(*fe_module)(const struct fk_frame_edit *e, size_t *len);
	int (*fe_rename)(struct fk_frame_edit *e, const char *name, size_t len);
	void (*fe_drop)(struct fk_frame_edit *e);
	int (*fe_colour)(struct fk_frame_edit *e, const char *colour);
	/* sample edits: frames are root first, index 0 .. n-1 */
	size_t (*se_depth)(const struct fk_sample_edit *e);
	const char *(*se_frame_name)(const struct fk_sample_edit *e, size_t i, size_t *len);
	int (*se_frame_annot)(const struct fk_sample_edit *e, size_t i);
	const char *(*se_frame_module)(const struct fk_sample_edit *e, size_t i, size_t *len);
	int (*se_rename)(struct fk_sample_edit *e, size_t i, const char *name, size_t len);
	int (*se_colour)(struct fk_sample_edit *e, size_t i, const char *colour);
	void (*se_remove)(struct fk_sample_edit *e, size_t i);   /* drop frame i */
	void (*se_truncate)(struct fk_sample_edit *e, size_t n); /* keep frames 0..n-1 */
	int (*se_insert)(struct fk_sample_edit *e, size_t i, const char *name, size_t len);
	double (*se_weight)(const struct fk_sample_edit *e);
	void (*se_set_weight)(struct fk_sample_edit *e, double w);
	void (*se_drop)(struct fk_sample_edit *e);
	/* metadata, or NULL/-1 when the input did not give it */
	const struct fk_logged_sample *(*se_meta)(const struct fk_sample_edit *e);
	const char *(*se_comm)(const struct fk_sample_edit *e, size_t *len);

	/* --- appended in ABI 1.1: check with FK_HOST_HAS before use --- */
	/* parse_chunks: the engine reads `in` in large chunks, each cut after
	 * the last complete record (ops->boundary), and runs ops->parse on
	 * worker threads, each chunk as an input of its own (use getline/read on
	 * it as usual; line numbers and skipped lines are translated to the
	 * whole file's, errors reported in input order).  A regular
	 * uncompressed file whose plugin has sync() is instead cut into ranges
	 * at the boundaries sync() finds, which the workers read themselves
	 * (a worker done with its range takes the back half of another's);
	 * ops->boundary is then not called, so a parser must not learn from
	 * boundary() what a range needs (perf reads the first event type from
	 * the file's start with input_head).  Chunk or range, ops->parse sees
	 * whole records, and input_start tells where its part starts.  Worker
	 * w (0 .. sink_threads-1) always pushes into the same forked sink,
	 * which is joined at the end.  With one thread, or when the sample log
	 * is kept, ops->parse runs once on `in` itself.  Returns 0 or the first
	 * error in input order. */
	int (*parse_chunks)(struct fk_input *in, struct fk_sink *sink,
	                    const struct fk_chunk_ops *ops, void *ctx);

	/* Byte offset in the file at which this input's data starts: 0 for a
	 * whole input and for shard 0, more for a later shard (--shard K/N).
	 * A parser that treats the start of its input specially (dtrace skips
	 * its first lines, perf keeps the first event type it sees) must only
	 * do so at offset 0: a later shard starts at a sample boundary its
	 * sync() chose, in the middle of the file.  A chunk of parse_chunks
	 * starts at its offset in the input (so chunks are ordered by it). */
	uint64_t (*input_start)(const struct fk_input *in);

	/* --- also 1.1 --- */
	/* The interned id of frame i of a sample (FK_FRAME_NONE when out of
	 * range): stable for the run, so a filter can cache per-frame answers
	 * in an array instead of comparing names on every sample. */
	fk_frame_t (*se_frame_id)(const struct fk_sample_edit *e, size_t i);
	/* Drop frames i .. i+n-1 at once (re-rooting a deep stack with
	 * se_remove alone would be quadratic).  Out-of-range parts are ignored. */
	void (*se_remove_range)(struct fk_sample_edit *e, size_t i, size_t n);

	/* --- appended in ABI 1.2: check with FK_HOST_HAS before use --- */
	/* An input reading file descriptor fd (the read end of a pipe from a
	 * child process, say), called `name` in messages (copied).  The input
	 * owns fd: input_close closes it.  Bytes come as they are, never
	 * decompressed, and nothing is read before the first getline/read, so
	 * opening never waits on the writer.  NULL when out of memory (fd is
	 * closed then too). */
	struct fk_input *(*input_open_fd)(int fd, const char *name);
	/* Close and free an input made by input_open_fd (NULL is fine). */
	void (*input_close)(struct fk_input *in);
	/* Parse ins[0..n) with the loaded input plugin called `plugin`, as the
	 * consecutive parts of one text, into `sink`.  Its options are given as
	 * names (without "--") and text values (NULL for a flag), checked as
	 * the command line's are.  With n == 1 the plugin parses ins[0] into
	 * sink itself, with sink's threads.  With n > 1 every part is parsed at
	 * once, each on a thread of its own into a forked sink; the sinks are
	 * joined in part order, so sample order (the sample log) is part
	 * order.  The plugin's messages carry its own prefix; line numbers in
	 * its errors and in the skipped-line report count from the first line
	 * of ins[0] through every part before, under ins[0]'s name, and only
	 * the first error in part order is reported.  Every part is read to
	 * its end or to the plugin's error (or not at all when memory for its
	 * thread's sink ran out): a caller feeding parts from child processes
	 * stops those that are left when this fails.  The plugin's parse
	 * must keep its state per call (every plugin of flamekit's does).
	 * Returns 0 or the first error's status.  Only inside an input's
	 * parse (the sink knows which plugins are loaded). */
	int (*parse_parts)(const char *plugin, const char *const *optnames,
	                   const char *const *optvalues, size_t nopts,
	                   struct fk_input *const *ins, size_t n, struct fk_sink *sink);

	/* --- also 1.2 (check with FK_HOST_HAS) --- */
	/* Up to cap bytes from the very start of the file `in` reads, even
	 * when `in` is a later shard of it: for a parser whose records depend
	 * on what the file says first (perf keeps the first event type).
	 * Returns the byte count (0 when the start cannot be read again: a
	 * pipe, a compressed file, a chunk) or a negative status (reported). */
	ssize_t (*input_head)(const struct fk_input *in, void *buf, size_t cap);

	/* --- also 1.2 --- */
	/* Structured option values (FK_OPT_VALUE).  value_type gives the enum
	 * fk_value_type (FK_VALUE_NULL for a NULL v).  value_text: the text of
	 * a NULL, BOOL, NUMBER or STRING value as written (NUL-terminated,
	 * *len set when len is not NULL), NULL for a MAP or LIST.  value_count:
	 * the items of a MAP or LIST, 0 otherwise.  value_item: item i (NULL
	 * when out of range); for a MAP, *key and *keylen (when not NULL) receive
	 * the item's key, for a LIST NULL/0.  Every pointer stays valid as long
	 * as the options struct that holds the value (the whole run). */
	int (*value_type)(const struct fk_value *v);
	const char *(*value_text)(const struct fk_value *v, size_t *len);
	size_t (*value_count)(const struct fk_value *v);
	const struct fk_value *(*value_item)(const struct fk_value *v, size_t i,
	                                     const char **key, size_t *keylen);
	/* The number of frame ids of a profile: ids are 0 .. frames-1, so an
	 * output can keep per-frame data in an array. */
	size_t (*frames)(const struct fk_profile *p);

	/* --- appended in ABI 1.3: check with FK_HOST_HAS before use --- */
	/* push_ext: push with attributes.  `known` FK_NODE_NONE pushes
	 * smp's frames as push() does, and *node (when not NULL) receives the
	 * leaf; a node push() or push_ext() returned before repeats that
	 * stack as push_node() does (smp->frames ignored, *node untouched).
	 * ext may be NULL (no attributes). */
	int (*push_ext)(struct fk_sink *s, fk_node_t known, const struct fk_sample *smp,
	                const struct fk_sample_ext *ext, fk_node_t *node);
	/* The attributes of the sample a filter sees.  se_attr: the value of
	 * the first attribute named key[0..key_len), NULL when it has none
	 * (*len set otherwise).  se_attrs: all of them into *attrs, returning
	 * the count (0 and NULL for none).  Valid inside the callback only. */
	const char *(*se_attr)(const struct fk_sample_edit *e, const char *key, size_t key_len,
	                       size_t *len);
	size_t (*se_attrs)(const struct fk_sample_edit *e, const struct fk_attr **attrs);
	/* The attributes of logged sample i (see samples), as se_attrs; and
	 * its thread name (comm), NULL when the input gave none.  The engine
	 * keeps one copy of each distinct list: samples with the same
	 * attributes return the same pointer.  Valid until render returns. */
	size_t (*sample_attrs)(const struct fk_profile *p, size_t i, const struct fk_attr **attrs);
	const char *(*sample_comm)(const struct fk_profile *p, size_t i, size_t *len);

	/* --- also 1.3 (check with FK_HOST_HAS) --- */
	/* sink_set_unit for one series (0 .. FK_SERIES_MAX-1), for an input
	 * that pushes every series itself (FK_SAMPLE_SERIES) in units of their
	 * own: perf --series-by-event cpu-clock,page-faults gives ns and
	 * page-faults.  The unit is copied; the first one given stays. */
	void (*sink_set_series_unit)(struct fk_sink *s, int series, const char *unit);

	/* --- appended in ABI 1.4: check with FK_HOST_HAS before use --- */
	/* parse_parts for a plugin that parses the parts itself and keeps one
	 * state across them (perf-data: one perf parser session whose
	 * segments are the time slices, so that what spans two slices is
	 * paired): ops->parse(ctx, k, ins[k], sink_k) for part k, every part
	 * at once on a thread of its own into a forked sink (with n == 1 into
	 * sink itself, whose threads it may use), everything else as
	 * parse_parts (sinks joined in part order; line numbers, skipped lines
	 * and the first error in part order, as one input's).  Then, when no
	 * part failed, ops->finish(ctx, sink) runs once with the joined sink,
	 * before the skipped-line report, as the end of one parse would; its
	 * errors are its own to report (ins[0] names the whole).  Messages keep
	 * the caller's prefix.  Returns 0 or the first error's status. */
	int (*parse_streams)(struct fk_input *const *ins, size_t n, struct fk_sink *sink,
	                     const struct fk_part_ops *ops, void *ctx);
	/* Whether the samples pushed into s are kept in push order (an output
	 * in the pipeline needs them: flamechart, pprof, ...).  A plugin whose
	 * parallel parse would push some samples out of input order parses in
	 * one pass when it is. */
	int (*sink_keeps_samples)(struct fk_sink *s);

	/* --- also 1.4 (check with FK_HOST_HAS) --- */
	/* input_peek: the bytes already read ahead of the next line, without
	 * consuming them or reading more: *data and *len (0 when nothing is
	 * buffered; getline() then reads more).  Valid until the next getline()
	 * or read().  For a plugin that wants to take many lines at once (a
	 * record's body) instead of one getline() each.  A chunk of
	 * parse_chunks() is buffered whole.
	 * input_consume: take the first len of those bytes, which hold `lines`
	 * '\n' characters: the next getline() starts after them, and
	 * input_lineno() has gone up by `lines`.  Returns 0, or FK_ERR_USAGE
	 * (nothing consumed) when len is more than input_peek() gave.  Bytes
	 * taken this way keep any '\r' getline() would have removed. */
	int (*input_peek)(struct fk_input *in, const char **data, size_t *len);
	int (*input_consume)(struct fk_input *in, size_t len, uint64_t lines);

	/* --- appended in ABI 1.5: check with FK_HOST_HAS before use --- */
	/* side_output: a second file the render of w writes (a palette map),
	 * into *side, which w owns: write it with write/printf.  It is opened
	 * as an output is (its symbolic links judged, a temporary beside the
	 * file, the old file's mode and owner kept) and renamed into place
	 * with w's output, only when the whole run succeeded; a failed run
	 * leaves the old file.  A later side output of the same file in the
	 * same run replaces an earlier one (which is then never written).
	 * Returns 0 or a negative status (reported, naming path).
	 * side_pending: the bytes written so far to this run's side output of
	 * path (however spelled), NULL when there is none: a render reads the
	 * map an earlier output of the run will write, instead of the old
	 * file.  Valid until the next call of side_output, write or printf. */
	int (*side_output)(struct fk_writer *w, const char *path, struct fk_writer **side);
	const char *(*side_pending)(const char *path, size_t *len);
	/* --- appended in ABI 1.6: check with FK_HOST_HAS before use --- */
	/* push_child: the node of the stack `parent`'s stack plus the frame
	 * fr (FK_NODE_ROOT: the stack of fr alone) into *node, made when it is
	 * new, without a sample: push_node() (or push_ext()) then adds one.
	 * For an input whose stacks are a tree (a node and its parent), so
	 * that each node's stack costs one frame, not its depth.  `parent` is a
	 * node push(), push_ext() or push_child() gave for this sink.  When
	 * the sink runs per-sample filters (which see whole stacks, so a
	 * sample costs its depth anyway) *node is FK_NODE_NONE: push the
	 * frames instead.  Returns 0 or a negative status (FK_ERR_NOMEM,
	 * FK_ERR_USAGE for a parent that is not a node of the sink). */
	int (*push_child)(struct fk_sink *s, fk_node_t parent, const struct fk_frameref *fr,
	                  fk_node_t *node);
	/* --- appended in ABI 1.8: check with FK_HOST_HAS before use --- */
	/* sink_set_start_time: the wall-clock time the capture read into s
	 * started, in ns since the Unix epoch (UTC), for an input whose format
	 * records one (perf's header); an input whose clock is only monotonic
	 * (V8's startTime) says nothing.  Of several inputs the earliest is
	 * kept.  start_time: that time into *unix_ns, returning 1, or 0 when no
	 * input gave one (*unix_ns untouched). */
	void (*sink_set_start_time)(struct fk_sink *s, int64_t unix_ns);
	int (*start_time)(const struct fk_profile *p, int64_t *unix_ns);
	/* --- appended in ABI 1.10: check with FK_HOST_HAS before use --- */
	/* What the user chose for the names of input `in` (--demangle[=STYLE],
	 * --no-demangle, a job input's `demangle:`): an enum fk_demangle, or
	 * -1 when the user said nothing (the descriptor's `demangle` applies)
	 * and for an input made by input_open_fd.  The engine's demangle step
	 * runs as before whatever the plugin does with it; this is for a
	 * plugin that turns addresses into names and demangles them itself
	 * (perf-data), so that --no-demangle gives the names as stored. */
	int (*input_demangle)(const struct fk_input *in);
};

/* Common head of every descriptor. */
struct fk_plugin_header {
	uint32_t magic;       /* FK_PLUGIN_MAGIC */
	uint16_t abi_major;   /* FK_ABI_MAJOR the plugin was built with */
	uint16_t abi_minor;
	uint32_t struct_size; /* sizeof the whole descriptor */
	uint32_t kind;        /* enum fk_plugin_kind */
	const char *name;     /* "perf": lower case, unique */
	const char *version;  /* "1.0" */
	const char *description; /* one line */
	const struct fk_option *options; /* may be NULL */
	size_t options_size;  /* sizeof the options struct */
};

struct fk_input_plugin {
	struct fk_plugin_header h;
	/* Confidence 0..100 that buf (the first len bytes of the input, at most
	 * 64 KiB, maybe cut mid-line) is this format.  NULL: never auto-picked. */
	int (*probe)(const unsigned char *buf, size_t len);
	/* Read all of `in`, push samples into `sink`.  0 or a negative status;
	 * errors are reported with host->input_error before returning. */
	int (*parse)(const struct fk_host *host, struct fk_input *in,
	             struct fk_sink *sink, const void *opts);

	/* --- appended in ABI 1.1 --- */
	/* Find a sample boundary, so that one input file can be split into N
	 * byte ranges parsed independently (`--shard K/N`) whose merged results
	 * equal the whole file's.  buf holds len bytes of the (uncompressed,
	 * seekable) input starting ONE byte before the engine's nominal cut
	 * point, so buf[0] is context, not a candidate.  Return:
	 *   i in [1, len]  the index of the first byte of the first sample that
	 *                  starts at index >= 1 (parsing from buf + i must give
	 *                  exactly the samples whose text starts there);
	 *   0              no boundary in buf yet: the engine calls again with a
	 *                  longer window from the same start (eof != 0 means
	 *                  there is no more input: return len for "no further
	 *                  sample starts in this input");
	 *   negative       this input cannot be cut at all (the engine reports
	 *                  "cannot be sharded").
	 * The answer must be a pure function of the bytes: calling again with a
	 * longer window from the same start must give the same index, because
	 * the engine computes the boundary between shards K-1 and K twice, once
	 * in each.  A format whose parse needs state from before the cut (a
	 * header naming the columns, say) must make the shard's parse get it
	 * some other way, or leave sync NULL.  NULL: the format cannot be
	 * sharded. */
	ssize_t (*sync)(const unsigned char *buf, size_t len, int eof);

	/* --- appended in ABI 1.2 --- */
	/* See FK_CHECK_DOC below.  May be NULL. */
	int (*check)(const struct fk_host *host, const void *opts, const char *where);

	/* --- appended in ABI 1.9 --- */
	/* enum fk_demangle: whether the engine demangles the C++, Rust and D
	 * names of this format's inputs when the user does not say (the
	 * demangle filter, first, for each input on its own).  0
	 * (FK_DEMANGLE_NO, and what a plugin built before 1.9 reads as):
	 * names stay as pushed, for a format whose output must stay another
	 * tool's byte for byte (FlameGraph's stackcollapse scripts) or whose
	 * producer demangles already as its viewer wants.  The loader refuses
	 * a value it does not know. */
	int demangle;
};

/* How an input's frame names are demangled (struct fk_input_plugin's
 * `demangle`, 1.9).  Append-only. */
enum fk_demangle {
	FK_DEMANGLE_NO = 0,    /* names as the input gives them */
	FK_DEMANGLE_FULL = 1,  /* what c++filt prints: argument lists, Rust hashes */
	FK_DEMANGLE_SHORT = 2, /* no argument lists, no Rust hashes (inferno's) */
};

/* FK_CHECK_DOC: every descriptor's optional check(host, opts, where) is
 * called once per instance with its final options, before any input is
 * read (and by `flamekit run --check`), so that a bad value fails at once
 * instead of after a long parse: `--top 0`, an unknown palette.  Log the
 * problem with host->log, one sentence naming the option and what is
 * allowed ("--top must be at least 1, not 0"), and return FK_ERR_USAGE;
 * return 0 when the options are fine.  The engine puts the plugin and the
 * options' origin in front of the message ("[output:top] job.yaml:12:5: "),
 * so check logs only the problem; `where` is that origin ("job.yaml:12:5",
 * NULL on the command line), for plugins that want it.  check must not
 * keep state: create/parse/render see the same options later. */

struct fk_filter_plugin {
	struct fk_plugin_header h;
	/* Make one instance.  `where` names the instance in messages
	 * ("job.yaml:12:5").  On error, log it and return a negative status. */
	int (*create)(const struct fk_host *host, const void *opts,
	              const char *where, void **state);
	/* Once per distinct frame (results are cached by the engine).  May be NULL. */
	int (*frame)(void *state, struct fk_frame_edit *e);
	/* Once per sample, in input order, single-threaded.  May be NULL. */
	int (*sample)(void *state, struct fk_sample_edit *e);
	void (*destroy)(void *state);
	/* Appended after 1.0.  Which callbacks this instance needs (a mask of
	 * enum fk_filter_uses), asked once after create.  NULL means every
	 * callback the descriptor sets.  A scripted filter whose script has no
	 * per-sample function answers FK_FILTER_USES_FRAME, so the inputs keep
	 * parsing on every thread. */
	unsigned (*uses)(void *state);

	/* --- appended in ABI 1.2 --- */
	/* See FK_CHECK_DOC above.  May be NULL. */
	int (*check)(const struct fk_host *host, const void *opts, const char *where);
};

enum fk_filter_uses {
	FK_FILTER_USES_FRAME = 1u << 0,
	FK_FILTER_USES_SAMPLE = 1u << 1,
};

enum fk_output_needs {
	FK_OUTPUT_NEEDS_SAMPLES = 1u << 0, /* keep the sample log */
};

struct fk_output_plugin {
	struct fk_plugin_header h;
	unsigned needs; /* enum fk_output_needs */
	/* Render the profile to w.  0 or a negative status; on error log a
	 * message first.  The engine renames the output into place only on 0. */
	int (*render)(const struct fk_host *host, const struct fk_profile *p,
	              struct fk_writer *w, const void *opts);

	/* --- appended in ABI 1.2 --- */
	/* See FK_CHECK_DOC above.  May be NULL. */
	int (*check)(const struct fk_host *host, const void *opts, const char *where);

	/* --- appended in ABI 1.3 --- */
	/* May be NULL (a plugin built before 1.3 reads as NULL): every frame
	 * matters, and render() gets the whole profile.
	 *
	 * The smallest weight a frame must have for this output to draw
	 * anything of it or of the frames above it, for a profile whose root
	 * weighs `total` (series 0), with these options (check() has accepted
	 * them); negative when every frame matters (--reverse, or any option
	 * that needs the whole tree).  Called by a host that knows the total
	 * before it builds the profile, and can then skip what cannot show
	 * (`flamekit graph` of folded files: hundreds of thousands of distinct
	 * stacks, of which a graph draws a few thousand frames).  It must not
	 * log or keep state: the host may call it and then not cut.
	 *
	 * A value w >= 0 promises that render() writes the same bytes from a
	 * profile cut as follows, for any t with 0 <= t <= w (the host keeps a
	 * margin against rounding: it cuts below w / 2).  The host cuts only
	 * a profile of one series, weights whole numbers below 2^53 (so every
	 * total is exact whatever the order of additions), no attributes.
	 *   - The tree: every frame whose total is at least t keeps its
	 *     children, its total and its place among its siblings.  A frame
	 *     narrower than t, whose parent is at least t, keeps its total
	 *     (the weight of every frame above it becomes its own or its
	 *     child's) and at most one child, below which there is nothing;
	 *     it keeps one where it had children and a sibling's name starts
	 *     with its name (a frame with children sorts as "name;", a leaf as
	 *     "name"), so it keeps its place.  Nothing above a narrow frame,
	 *     nor the names, self weights and depths of its remains, may change
	 *     the output.
	 *   - With FK_OUTPUT_NEEDS_SAMPLES, the sample log, when no sample has
	 *     FK_SAMPLE_TIME: samples stay in input order with their weights,
	 *     and a sample's stack may end before its first frame whose run
	 *     (the adjacent samples sharing that frame and every frame below
	 *     it) weighs less than t.
	 * The svg, icicle and flamechart plugins point this at the svgdoc
	 * library's svg_min_weight(). */
	double (*min_weight)(const struct fk_host *host, const void *opts, double total);
};

/* The one exported entry point.  The macros fill the header so plugin
 * authors cannot get magic, versions or sizes wrong. */
#define FK_ENTRY_NAME flamekit_plugin_init
typedef const struct fk_plugin_header *(*fk_plugin_init_fn)(void);

/* Each macro takes the descriptor variable of its kind: with GCC or Clang
 * FLAMEKIT_REGISTER_OUTPUT(an_input_plugin) does not compile ("size of
 * array is negative"); other compilers at least warn about the pointer
 * assignment.  The loader also refuses a descriptor that lacks the
 * callbacks its kind needs (parse, render, frame or sample). */
#if defined(__GNUC__) && !defined(__cplusplus)
#define FK__KIND_CHECK(var, T) \
	typedef char fk__kind_check[__builtin_types_compatible_p(__typeof__(var), T) ? 1 : -1]; \
	(void)sizeof(fk__kind_check)
#else
#define FK__KIND_CHECK(var, T) \
	{ T *fk__p = &(var); (void)fk__p; }
#endif

#define FK__REGISTER(var, KIND, T)                                           \
	FK_EXPORT const struct fk_plugin_header *flamekit_plugin_init(void);  \
	FK_EXPORT const struct fk_plugin_header *flamekit_plugin_init(void)   \
	{                                                                     \
		FK__KIND_CHECK(var, T);                                       \
		(var).h.magic = FK_PLUGIN_MAGIC;                              \
		(var).h.abi_major = FK_ABI_MAJOR;                             \
		(var).h.abi_minor = FK_ABI_MINOR;                             \
		(var).h.struct_size = (uint32_t)sizeof(var);                  \
		(var).h.kind = (KIND);                                        \
		return &(var).h;                                              \
	}

#define FLAMEKIT_REGISTER_INPUT(var) FK__REGISTER(var, FK_PLUGIN_INPUT, struct fk_input_plugin)
#define FLAMEKIT_REGISTER_FILTER(var) FK__REGISTER(var, FK_PLUGIN_FILTER, struct fk_filter_plugin)
#define FLAMEKIT_REGISTER_OUTPUT(var) FK__REGISTER(var, FK_PLUGIN_OUTPUT, struct fk_output_plugin)

#ifdef __cplusplus
}
#endif
#endif /* FLAMEKIT_PLUGIN_H */
