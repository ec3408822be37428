/*
 * Shard boundaries for the aggregation formats (dtrace, stap): a record is
 * its frame lines followed by a line holding only its count, so the byte
 * after a count-only line starts the next record.  Used as the input
 * plugin's sync callback (see struct fk_input_plugin).
 */
#ifndef FK_COUNT_SYNC_H
#define FK_COUNT_SYNC_H

#include <stddef.h>
#include <sys/types.h>

static inline int sync_count_line(const unsigned char *s, size_t n)
{
	size_t i = 0, d = 0;

	while (i < n && (s[i] == ' ' || s[i] == '\t'))
		i++;
	while (i < n && s[i] >= '0' && s[i] <= '9')
		i++, d++;
	while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r'))
		i++;
	return d > 0 && i == n;
}

static inline ssize_t count_sync(const unsigned char *buf, size_t len, int eof)
{
	size_t start = 0;

	/* buf[0] is context: the first candidate line starts after a '\n' */
	for (size_t i = 0; i < len; i++) {
		if (buf[i] != '\n')
			continue;
		if (start > 0 && sync_count_line(buf + start, i - start))
			return (ssize_t)(i + 1);
		start = i + 1;
	}
	return eof ? (ssize_t)len : 0;
}

#endif
