/*
 * Shard boundaries for formats whose records each start with a line of their
 * own ("@NAME[" for bpftrace, a thread's header for thread dumps): the
 * input plugin's sync callback (see struct fk_input_plugin) is
 * line_sync(buf, len, eof, starts), where starts(s, n) says whether the line
 * s of n bytes (no '\n') opens a record; LINE_SYNC(name, starts) defines it.
 */
#ifndef FK_LINE_SYNC_H
#define FK_LINE_SYNC_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <sys/types.h>

/* The offset of the first line of buf, after buf[0] (context), that starts
 * a record; 0 when buf ends before one is seen whole (more is needed), or
 * len at the end of the input. */
static inline ssize_t line_sync(const unsigned char *buf, size_t len, int eof,
                                bool (*starts)(const char *s, size_t n))
{
	for (size_t i = 0; i + 1 < len; i++) {
		const unsigned char *s = buf + i + 1, *nl;
		if (buf[i] != '\n')
			continue;
		nl = memchr(s, '\n', len - i - 1);
		if (!nl && !eof)
			return 0;
		if (starts((const char *)s, nl ? (size_t)(nl - s) : len - i - 1))
			return (ssize_t)(i + 1);
	}
	return eof ? (ssize_t)len : 0;
}

/* Defines the sync callback `name` for records that start at the lines
 * starts(s, n) accepts. */
#define LINE_SYNC(name, starts)                                                    \
	static ssize_t name(const unsigned char *buf, size_t len, int eof)         \
	{                                                                          \
		return line_sync(buf, len, eof, starts);                           \
	}

#endif
