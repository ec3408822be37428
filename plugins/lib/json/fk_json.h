/*
 * libfkjson: what the JSON input plugins (v8, speedscope, chrome, gecko) share
 * around yajl's streaming parser (Debian's libyajl-dev): the loop that feeds
 * an input to yajl 1 MiB at a time, the position (FILE:LINE:COL) of the
 * token a callback is looking at, and one error per parse, reported once
 * the parse stops.  A convenience library linked into each plugin, so that
 * no plugin compiles another's files.
 *
 * A callback that finds bad content calls fk_json_fail() and returns its
 * result (0), which stops yajl at once: the error names the line and column
 * of the token it was looking at, "FILE:LINE: not a WHAT: message (column
 * COL)".  A syntax error is reported with its line and column too, at
 * the byte yajl stopped on.
 */
#ifndef FK_JSON_H
#define FK_JSON_H

#include <stddef.h>
#include <stdint.h>

#include <flamekit/plugin.h>
#include <yajl/yajl_parse.h>

#include "../../input/common/limit.h"
#include "vector/fkvector.h"

/* Nesting deeper than this is refused (yajl has no limit of its own). */
#define FK_JSON_MAX_DEPTH 1000

struct fk_json {
	const struct fk_host *h;
	struct fk_input *in;
	const char *what;       /* "speedscope file": messages say "not a speedscope file: ..." */
	int unclosed_ok;        /* set by the callbacks while input that ends here is
	                         * whole (the Trace Event Format's array without its "]") */
	const struct fk_input_limit *lim; /* --max-input-size (NULL: none): an input
	                         * holding more bytes (inflated) is refused, with
	                         * fk_limit_exceeded's sentence, before they are parsed */
	/* private to fk_json.c */
	yajl_handle y;
	const struct fk_json_ops *ops;
	void *ctx;
	const unsigned char *chunk;
	uint64_t base, nl;      /* bytes and newlines before chunk */
	int64_t lastnl, prevnl; /* offsets of the last two newlines before chunk, -1 for none */
	size_t scan_at;         /* newlines of chunk[0 .. scan_at) counted: */
	uint64_t scan_nl;
	int64_t scan_lastnl;
	int failed, nomem, stop_rc;
	uint64_t err_line;
	char err[320];
};

/* What a plugin's reader is called with, in document order: a scalar
 * (type 'n' a number, num its value; 's' a string, s and len; 'z' null;
 * 'b' a boolean), an object's key, the start of an object (is_map) or an
 * array, and the end of one.  Each returns 1 to go on, or 0 to stop after
 * fk_json_fail, fk_json_nomem or fk_json_stop (or, from open, at the
 * nesting limit: reported as a syntax error at that byte). */
struct fk_json_ops {
	int (*scalar)(void *ctx, int type, double num, const unsigned char *s, size_t len);
	int (*key)(void *ctx, const unsigned char *s, size_t len);
	int (*open)(void *ctx, int is_map);
	int (*close)(void *ctx);
	/* Optional: report a syntax error (the JSON cut short when cut_short,
	 * else malformed or nested too deep) at LINE and COL in the reader's
	 * own words, returning the negative status; NULL for the driver's
	 * sentences (the v8 plugin keeps the one it had before it used
	 * this driver). */
	int (*syntax)(void *ctx, uint64_t line, uint64_t col, int cut_short);
};

/* Zero j and set its h, in, what and lim (NULL: no limit), for
 * fk_json_parse. */
void fk_json_init(struct fk_json *j, const struct fk_host *h, struct fk_input *in, const char *what,
                  const struct fk_input_limit *lim);

/* The options of a JSON reader whose only option is --max-input-size
 * (speedscope, gecko): its descriptor's options (of a struct
 * fk_json_opts) and check. */
struct fk_json_opts {
	const char *max_input_size;
};
extern const struct fk_option fk_json_options[];
int fk_json_check(const struct fk_host *h, const void *op, const char *where);

/* Parse all of j->in (set up by fk_json_init) with ops, which receive ctx.  Returns 0, or a negative
 * status once the error (syntax, content, empty input, out of memory, a
 * limit: FK_ERR_LIMIT) has
 * been reported (after out of memory, j->nomem is set).  Strings may hold any bytes; text after the value is
 * ignored, as the v8 plugin's reader does. */
int fk_json_parse(struct fk_json *j, const struct fk_json_ops *ops, void *ctx);

/* Record a content error at the current token (the first one wins) and
 * return 0, for a callback to return. */
int fk_json_fail(struct fk_json *j, const char *fmt, ...) FK_PRINTF(2, 3);
/* Stop the parse with status rc (negative), an error the caller has
 * reported already; returns 0. */
int fk_json_stop(struct fk_json *j, int rc);
/* Record that an allocation failed; returns 0. */
int fk_json_nomem(struct fk_json *j);
/* The 1-based line of the current token (for host->input_skip). */
uint64_t fk_json_line(const struct fk_json *j);

/* Grow the array arr (of cap elements, the host's allocation) to hold
 * need: lib/vector's fk_vector_grow; 0, or -1 when out of memory or need
 * elements overflow (arr and cap unchanged). */
#define FK_JSON_GROW(h, arr, cap, need) \
	fk_vector_grow((void **)&(arr), &(cap), (need), sizeof *(arr), (h)->realloc)

/* A string value a reader keeps until the next one replaces it (a
 * callFrame's functionName, an event's name): its own buffer, the host's
 * allocation, freed by the reader with h->free(str.s); set tells a key
 * that came from one that did not. */
struct fk_json_str {
	char *s;        /* NUL-terminated copy of the last value */
	size_t len, cap;
	int set;
};

/* Copy s[0..n) into d and mark it set: 1, or 0 when out of memory (after
 * fk_json_nomem), for a callback to return. */
int fk_json_str_set(struct fk_json *j, struct fk_json_str *d, const unsigned char *s, size_t n);

/* Parse the JSON text s[0..len), the value of a string the outer parse is
 * at (older Gecko profiles hold their "libs" as a string of JSON), with the
 * outer parse's ops and ctx, as if it stood in the string's place.  1 when
 * it is read, else 0 after the failure is set (a callback's, out of
 * memory, or "the string holding WHAT is not JSON" at the string); for a
 * scalar callback to return. */
int fk_json_parse_inner(struct fk_json *j, const unsigned char *s, size_t len, const char *what);

/* A JSON number token's value (yajl_number's text, not NUL-terminated). */
double fk_json_number(const char *s, size_t len);

/* For probes, which see only the first 64 KiB: whether buf[0..len) holds
 * the string "key" followed by a colon (an object key, at any depth); and
 * the first byte of the value, '{' or '[' (0 for anything else), after
 * whitespace and a UTF-8 byte-order mark. */
int fk_json_has_key(const unsigned char *buf, size_t len, const char *key);
int fk_json_first(const unsigned char *buf, size_t len);
/* Whether buf[0..len) holds "key" as a key of the top-level object (strings
 * and nesting skipped, so a key of the same name deeper down is not it). */
int fk_json_top_key(const unsigned char *buf, size_t len, const char *key);

#endif
