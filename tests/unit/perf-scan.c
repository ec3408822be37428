/*
 * The perf parser's fast paths against their references: a record body
 * taken whole (plugins/lib/perfscript/body.c: the SSE2 scan against the byte
 * loop, both against exact answers, and the hash taken during the scan
 * against perf_hash of the body), and the one-pass reading of the
 * usual header layout (header.c: perf_match_event against the general
 * rules alone, perf_match_event_rules) on exact lines and on many
 * generated ones.
 */
#include <stdint.h>
#include <stdio.h>

#include "testlib.h"

#include "../../plugins/lib/perfscript/internal.h"

/* Both scans on s; they must agree, their hashes must be perf_hash's of
 * the body, and the answer is returned. */
static size_t scan2(const char *s, size_t n, size_t *lines)
{
	const struct h128 seed = { 0x1234, n };
	struct h128 h1 = { 1, 1 }, h2 = { 2, 2 }, want;
	size_t l1 = 777, l2 = 777, l3 = 777, l4 = 777;
	size_t a = perf_body_scan(s, n, seed, &l1, &h1);
	size_t b = perf_body_scan_bytes(s, n, seed, &l2, &h2);

	assert_int_equal(a, b);
	/* without a hash wanted: the same answer */
	assert_int_equal(perf_body_scan(s, n, seed, &l3, NULL), a);
	assert_int_equal(perf_body_scan_bytes(s, n, seed, &l4, NULL), a);
	if (a != SIZE_MAX) {
		assert_int_equal(l1, l2);
		assert_int_equal(l1, l3);
		assert_int_equal(l1, l4);
		want = perf_hash(seed, s, a);
		assert_true(h1.a == want.a && h1.b == want.b);
		assert_true(h2.a == want.a && h2.b == want.b);
	}
	*lines = l1;
	return a;
}

static size_t scan_str(const char *s, size_t *lines)
{
	return scan2(s, strlen(s), lines);
}

static void test_body_exact(void **state)
{
	size_t lines;

	(void)state;
	assert_int_equal(scan_str("\t  400100 leaf+0x1 (/bin/prog)\n\t  400200 main+0x2 (/bin/prog)\n\nnext 1 ...",
	                          &lines), 62);
	assert_int_equal(lines, 2);
	/* a header followed at once by its empty line: an empty body */
	assert_int_equal(scan_str("\nnext", &lines), 0);
	assert_int_equal(lines, 0);
	/* spaces indent as well as tabs */
	assert_int_equal(scan_str("    1 a (m)\n\n", &lines), 12);
	assert_int_equal(lines, 1);
	/* left to the line-by-line path */
	assert_int_equal(scan_str("\t1 a (m)\r\n\r\n", &lines), SIZE_MAX);  /* CRLF */
	assert_int_equal(scan_str("\t1 a (m)\n\t2 b\r(m)\n\n", &lines), SIZE_MAX);
	assert_int_equal(scan2("\t1 a\0 (m)\n\n", 11, &lines), SIZE_MAX); /* NUL */
	assert_int_equal(scan_str("\t1 a (m)\nnext 1 [000] 1.0: 1 ev: \n\n", &lines), SIZE_MAX);
	assert_int_equal(scan_str("\t1 a (m)\n# a comment\n\n", &lines), SIZE_MAX);
	assert_int_equal(scan_str("\t1 a (m)\n\t2 b (m)\n", &lines), SIZE_MAX); /* no empty line */
	assert_int_equal(scan_str("\t1 a (m)", &lines), SIZE_MAX);
	assert_int_equal(scan_str("", &lines), SIZE_MAX);
	/* a '\r' after the empty line is the next record's business */
	assert_int_equal(scan_str("\t1 a (m)\n\nx\r\n", &lines), 9);
}

/* The empty line and each kind of stop at every offset across 64-byte
 * blocks, in bodies of lines of every length. */
static void test_body_offsets(void **state)
{
	char buf[512];
	size_t lines;

	(void)state;
	for (size_t linelen = 2; linelen < 80; linelen++) {
		for (size_t nlines = 0; nlines * linelen < 400; nlines++) {
			size_t k = 0;
			for (size_t l = 0; l < nlines; l++) {
				buf[k++] = l % 2 ? ' ' : '\t';
				for (size_t c = 1; c + 1 < linelen; c++)
					buf[k++] = (char)('a' + (l + c) % 26);
				buf[k++] = '\n';
			}
			size_t body = k;
			buf[k++] = '\n';
			memcpy(buf + k, "tail 1 [000]", 12);
			k += 12;
			assert_int_equal(scan2(buf, k, &lines), body);
			assert_int_equal(lines, nlines);
			/* the bytes ending just before the empty line */
			assert_int_equal(scan2(buf, body, &lines), SIZE_MAX);
			/* each byte of the body turned into each kind of stop */
			for (size_t at = 0; at < body; at += 7) {
				static const char stops[] = { '\r', '\0', 'x' };
				for (size_t s = 0; s < sizeof stops; s++) {
					char was = buf[at];
					bool start = at == 0 || buf[at - 1] == '\n';
					buf[at] = stops[s];
					size_t got = scan2(buf, k, &lines);
					/* 'x' stops only at a line start (or as the
					 * line's '\n', which joins two lines) */
					if (stops[s] != 'x' || start)
						assert_int_equal(got, SIZE_MAX);
					buf[at] = was;
				}
			}
		}
	}
}

/* Random bytes of the characters that matter: the two scans agree. */
static void test_body_random(void **state)
{
	static const char alphabet[] = "\t\t\t   \n\n\n\naaaa#\r";
	char buf[700];
	uint64_t x = 88172645463325252ull;
	size_t lines;

	(void)state;
	for (int round = 0; round < 200000; round++) {
		size_t n;
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		n = (size_t)(x % sizeof buf);
		for (size_t i = 0; i < n; i++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			/* mostly well-formed lines, so that bodies get long */
			buf[i] = (i == 0 || buf[i - 1] == '\n') ? (x % 9 ? '\t' : alphabet[(x >> 8) % 14])
			         : x % 23 == 0 ? '\n' : x % 509 == 0 ? '\0' : alphabet[(x >> 8) % 14];
		}
		scan2(buf, n, &lines);
	}
}

static void check_same(const char *line)
{
	struct header a, b;
	size_t n = strlen(line), from;

	memset(&a, 0x5a, sizeof a);
	memset(&b, 0xa5, sizeof b);
	from = perf_match_header(line, n, &a);
	if (!from)
		return;
	perf_match_header(line, n, &b);
	perf_match_event(line, n, from, &a);
	perf_match_event_rules(line, n, from, &b);
	if (a.has_time != b.has_time || (a.has_time && a.time_ns != b.time_ns) ||
	    !a.event != !b.event ||
	    (a.event && (a.event != b.event || a.event_len != b.event_len)) || a.period != b.period ||
	    !a.args != !b.args || (a.args && (a.args != b.args || a.args_len != b.args_len)))
		fail_msg("fast and general header rules differ on \"%s\"", line);
}

static void test_header_exact(void **state)
{
	struct header h;
	const char *l = "stairs-0-1 14154  1023.188318:    1001001 cpu-clock:ppp: ";
	size_t from;

	(void)state;
	from = perf_match_header(l, strlen(l), &h);
	perf_match_event(l, strlen(l), from, &h);
	assert_true(h.has_time);
	assert_true(h.time_ns == 1023188318000ll);
	assert_true(h.period == 1001001);
	assert_int_equal(h.event_len, 13);
	assert_memory_equal(h.event, "cpu-clock:ppp", 13);
	assert_null(h.args);

	l = "java 4321/4322 [003] 5.000000001: sched:sched_switch: prev_comm=java prev_pid=4322";
	from = perf_match_header(l, strlen(l), &h);
	perf_match_event(l, strlen(l), from, &h);
	assert_true(h.time_ns == 5000000001ll);
	assert_int_equal(h.event_len, 18);
	assert_memory_equal(h.event, "sched:sched_switch", 18);
	assert_non_null(h.args);
	assert_memory_equal(h.args, "prev_comm=java", 14);

	check_same(l);
	check_same("a 1 [000] 12: 5 ev: ");               /* "12:" is no time */
	check_same("a 1 [000] 99999999999.5: 5 ev: ");    /* 11 digits of seconds */
	check_same("a 1 [000] 00000000001.5: 5 ev: ");    /* leading zeros */
	/* times from 2^62 ns on (146 years) are none: flamekit cannot order them */
	l = "ab 1 [000] 4611686017.999999999: 5 ev: ";
	from = perf_match_header(l, strlen(l), &h);
	perf_match_event(l, strlen(l), from, &h);
	assert_true(h.has_time && h.time_ns == 4611686017999999999ll);
	l = "ab 1 [000] 4611686018.000000000: 5 ev: ";
	from = perf_match_header(l, strlen(l), &h);
	perf_match_event(l, strlen(l), from, &h);
	assert_false(h.has_time);
	check_same("a 1 [000] 4611686017.999999999: 5 ev: ");
	check_same("a 1 [000] 4611686018.000000000: 5 ev: ");
	check_same("a 1 [000] 9223372035.999999999: 5 ev: ");
	check_same("a 1 [000] 9223372036.000000000: 5 ev: ");
	check_same("a 1 1.5:5 ev:");
	check_same("a 1 1.5: 5x ev:");
	check_same("a 1 1.5: ev");
	check_same("a 1 1.5: :");
	check_same("a 1 1.5: 5");
	check_same("a 1 1.5:");
	check_same("a 1 1.1234567891234: 3 e:");
	check_same("a 1 [000] x 1.5: 3 e:");
}

/* Lines from pieces of every layout, as both rules read them. */
static void test_header_random(void **state)
{
	static const char *const comm[] = { "perf", "a b", "java" };
	static const char *const pid[] = { "1", "12/34", "-1" };
	static const char *const cpu[] = { "", "[000] ", "[12]", "x " };
	static const char *const tm[] = { "1023.188318:", "1.5:", "12:", ".5:", "1.2.3:", "1.:",
	                                  "99999999999.1:", "9223372036.5:", "1.0000000001:", "",
	                                  "4611686017.9:", "4611686018.0:" };
	static const char *const period[] = { "", "1001001", "0", "5x", "123456789012345678901" };
	static const char *const ev[] = { "cpu-clock:ppp:", "cycles:", "sched:sched_switch:", "e", ":",
	                                  "" };
	static const char *const args[] = { "", " ", " prev_comm=a prev_pid=1", "\t", " x:" };
	static const char *const sep[] = { " ", "  ", "\t", "" };
	char line[256];
	uint64_t x = 0x9e3779b97f4a7c15ull;

	(void)state;
	for (int round = 0; round < 100000; round++) {
		const char *p[10];
#define PICK(k, a) (x ^= x << 13, x ^= x >> 7, x ^= x << 17, p[k] = a[x % (sizeof a / sizeof a[0])])
		PICK(0, comm), PICK(1, pid), PICK(2, cpu), PICK(3, sep), PICK(4, tm), PICK(5, sep);
		PICK(6, period), PICK(7, sep), PICK(8, ev), PICK(9, args);
#undef PICK
		snprintf(line, sizeof line, "%s %s %s%s%s%s%s%s%s%s", p[0], p[1], p[2], p[3], p[4], p[5],
		         p[6], p[7], p[8], p[9]);
		check_same(line);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_body_exact),
		cmocka_unit_test(test_body_offsets),
		cmocka_unit_test(test_body_random),
		cmocka_unit_test(test_header_exact),
		cmocka_unit_test(test_header_random),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
