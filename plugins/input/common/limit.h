/*
 * --max-input-size: how many bytes an input plugin that must hold what it
 * reads (pprof's tables and samples, an html report) reads before it
 * refuses the input, so that a decompression bomb (a 2 MiB .gz holding
 * 2 GiB), /dev/zero or an endless pipe cannot take the machine's memory.
 * The bytes counted are the input's as the plugin reads them: inflated,
 * when the engine inflates a gzip file.
 *
 * The default, "auto": 16 times the file's size on disk, at least 8 MiB,
 * for a regular file (a gzip pprof inflates 2 to 10 times; raw, the file
 * is its own size; a bomb inflates up to 1032 times), and 1 GiB for
 * anything else (a pipe, a device, stdin), 3.5 times the largest real
 * profile met (a 285 MB pprof).  A number of bytes, with an optional K, M,
 * G or T (binary) suffix, sets it; "0" means no limit.  Header-only.
 */
#ifndef FK_INPUT_LIMIT_H
#define FK_INPUT_LIMIT_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <flamekit/plugin.h>

#define FK_LIMIT_HELP \
	"refuse an input holding more than this many bytes, inflated (K, M, G, T suffixes; 0: " \
	"no limit); auto: 16 times a regular file's size, at least 8M, else 1G"

struct fk_input_limit {
	uint64_t bytes;
	char text[64];   /* for the message: "1G", "auto: 8388608 bytes for this file" */
};

/* text ("auto", "4G", "123456", "0") as bytes; -1 when it is none of
 * these. */
static inline int fk_limit_value(const char *text, uint64_t *bytes)
{
	char *e;
	unsigned long long v;
	int sh = 0;

	if (!text || !strcmp(text, "auto")) {
		*bytes = 0;
		return 1;
	}
	if (*text < '0' || *text > '9')
		return -1;
	v = strtoull(text, &e, 10);
	switch (*e) {
	case 'K': case 'k': sh = 10; e++; break;
	case 'M': case 'm': sh = 20; e++; break;
	case 'G': case 'g': sh = 30; e++; break;
	case 'T': case 't': sh = 40; e++; break;
	}
	if (*e || (sh && v > (UINT64_MAX >> sh)))
		return -1;
	*bytes = v << sh;
	return 0;
}

/* For a plugin's check(): one sentence on a bad value. */
static inline int fk_limit_check(const struct fk_host *h, const char *text)
{
	uint64_t b;

	if (fk_limit_value(text, &b) >= 0)
		return 0;
	h->log(FK_LOG_ERROR, "--max-input-size takes auto or a number of bytes with an optional "
	       "K, M, G or T suffix (0: no limit), not \"%s\"", text);
	return FK_ERR_USAGE;
}

/* A plugin's check() callback, `fn`, for options struct `st` whose member
 * `member` holds the option's text. */
#define FK_LIMIT_CHECK_FN(fn, st, member)                                     \
	static int fn(const struct fk_host *h, const void *op, const char *where) \
	{                                                                       \
		(void)where;                                                    \
		return fk_limit_check(h, ((const st *)op)->member);             \
	}

/* The limit for input `in` from the option's text (checked already),
 * with "auto" at least min_file bytes for a regular file. */
static inline void fk_limit_for_min(const struct fk_host *h, struct fk_input *in,
                                    const char *text, uint64_t min_file,
                                    struct fk_input_limit *l)
{
	struct stat st;
	uint64_t b = 0;

	if (fk_limit_value(text, &b) == 0) {
		l->bytes = b ? b : UINT64_MAX;
		snprintf(l->text, sizeof l->text, "%s", text);
		return;
	}
	if (stat(h->input_name(in), &st) == 0 && S_ISREG(st.st_mode)) {
		b = (uint64_t)st.st_size * 16;
		l->bytes = b > min_file ? b : min_file;
		snprintf(l->text, sizeof l->text, "auto: %" PRIu64 " bytes for this file", l->bytes);
	} else {
		l->bytes = (uint64_t)1 << 30;
		snprintf(l->text, sizeof l->text, "auto: 1G for a stream");
	}
}

/* The limit for input `in` from the option's text (checked already). */
static inline void fk_limit_for(const struct fk_host *h, struct fk_input *in, const char *text,
                                struct fk_input_limit *l)
{
	fk_limit_for_min(h, in, text, (uint64_t)8 << 20, l);
}

/* The sentence when an input passes the limit; returns FK_ERR_LIMIT. */
static inline int fk_limit_exceeded(const struct fk_host *h, struct fk_input *in,
                                    const struct fk_input_limit *l)
{
	h->input_error(in, 0, "the input holds more than --max-input-size allows (%s): refused, as a "
	               "decompression bomb or an endless stream would be; a larger --max-input-size "
	               "reads it", l->text);
	return FK_ERR_LIMIT;
}

#endif
