/*
 * What the input plugins' probes share.  A probe judges a window of text
 * line by line, counting lines of its format ("good") and lines that are
 * not ("other").  Real files have stray lines the parsers skip and count
 * (a truncated record, a tool's comment), so a probe decides from what most
 * of the window says: a few unreadable lines lower its score, so that a
 * format fitting every line still wins, without refusing the file.
 */
#ifndef FK_PROBE_H
#define FK_PROBE_H

#include <stdbool.h>
#include <stddef.h>

/* Blank lines and comment lines ('#' or '//' first, after blanks) say
 * nothing about the format. */
static inline bool probe_ignorable(const char *s, size_t n)
{
	size_t k = 0;

	while (k < n && (s[k] == ' ' || s[k] == '\t' || s[k] == '\r'))
		k++;
	return k == n || s[k] == '#' || (n - k >= 2 && s[k] == '/' && s[k + 1] == '/');
}

/* The probe's score: `score` when every judged line fits, 10 less when at
 * most one in five does not, 0 when more do or none fits. */
static inline int probe_verdict(int score, size_t good, size_t other)
{
	if (good == 0)
		return 0;
	if (other == 0)
		return score;
	return other * 4 <= good ? score - 10 : 0;
}

#endif
