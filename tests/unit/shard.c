/* Sharding in the engine: fk_input_shard's byte ranges, the window
 * doubling when sync needs more bytes, host->input_start, the refusals,
 * and the folded plugin's sync callback. */
#include <unistd.h>

#include "testlib.h"

static char path[256];

/* A line-based sync, as the folded plugin's. */
static ssize_t fake_sync(const unsigned char *buf, size_t len, int eof)
{
	const unsigned char *nl = memchr(buf, '\n', len);
	if (nl)
		return (nl - buf) + 1;
	return eof ? (ssize_t)len : 0;
}
static ssize_t refuse_sync(const unsigned char *buf, size_t len, int eof)
{
	(void)buf, (void)len, (void)eof;
	return -1;
}

static void make_file(const void *data, size_t len)
{
	FILE *f;
	snprintf(path, sizeof path, "%s/fk-shard-test.%ld", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
	         (long)getpid());
	f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	fclose(f);
}

/* The bytes shard k of n reads, and its input_start. */
static char *read_shard(const struct fk_plugin *pl, unsigned k, unsigned n, uint64_t *start)
{
	struct fk_input in;
	static char out[1 << 20];
	size_t got = 0;
	ssize_t r;

	assert_int_equal(fk_input_open(&in, path), 0);
	assert_int_equal(fk_input_shard(&in, pl, k, n), 0);
	while ((r = fk_input_read(&in, out + got, sizeof out - 1 - got)) > 0)
		got += (size_t)r;
	assert_true(r == 0);
	out[got] = '\0';
	*start = fk_host.input_start(&in);
	fk_input_close(&in);
	return out;
}

static void test_ranges(void **state)
{
	struct fk_plugin pl;
	uint64_t st;

	(void)state;
	memset(&pl, 0, sizeof pl);
	test_descriptor(&pl, FK_PLUGIN_INPUT, "fake");
	pl.d.in.sync = fake_sync;
	make_file("aaaaaaaaaa 1\nb 2\nc 3\n", 21);
	/* nominal cuts at 5, 10, 15: two fall inside the long first line */
	assert_string_equal(read_shard(&pl, 0, 4, &st), "aaaaaaaaaa 1\n");
	assert_int_equal(st, 0);
	assert_string_equal(read_shard(&pl, 1, 4, &st), "");
	assert_int_equal(st, 13);
	assert_string_equal(read_shard(&pl, 2, 4, &st), "b 2\n");
	assert_int_equal(st, 13);
	assert_string_equal(read_shard(&pl, 3, 4, &st), "c 3\n");
	assert_int_equal(st, 17);
	/* more shards than bytes: each byte range is empty or one line */
	assert_string_equal(read_shard(&pl, 0, 64, &st), "");
	assert_string_equal(read_shard(&pl, 63, 64, &st), "");
	unlink(path);
}

static void test_window_doubles(void **state)
{
	struct fk_plugin pl;
	size_t n = 300 * 1024;
	char *big = malloc(n);
	uint64_t st;

	(void)state;
	memset(&pl, 0, sizeof pl);
	test_descriptor(&pl, FK_PLUGIN_INPUT, "fake");
	pl.d.in.sync = fake_sync;
	memset(big, 'x', n);
	big[250 * 1024] = '\n'; /* 100 KiB after the cut at n/2: past the first 64 KiB window */
	big[n - 1] = '\n';
	make_file(big, n);
	read_shard(&pl, 1, 2, &st);
	assert_int_equal(st, 250 * 1024 + 1);
	read_shard(&pl, 0, 2, &st);
	assert_int_equal(st, 0);
	free(big);
	unlink(path);
}

/* Sharding path 1 of 2 with pl fails with status, saying path and then
 * what (the message's rest, its newline included). */
static void expect_shard_refused(const struct fk_plugin *pl, int status, const char *what)
{
	struct fk_input in;
	char want[512];

	snprintf(want, sizeof want, "%s: %s", path, what);
	assert_int_equal(fk_input_open(&in, path), 0);
	capture_start();
	assert_int_equal(fk_input_shard(&in, pl, 1, 2), status);
	assert_string_equal(capture_text(), want);
	capture_stop();
	fk_input_close(&in);
}

static void test_refusals(void **state)
{
	struct fk_plugin pl;
	struct fk_input in;

	(void)state;
	memset(&pl, 0, sizeof pl);
	test_descriptor(&pl, FK_PLUGIN_INPUT, "fake");
	make_file("a 1\nb 2\n", 8);
	expect_shard_refused(&pl, FK_ERR_USAGE, "the fake format cannot be sharded (its plugin has no "
	                     "sync callback); parse it whole\n");

	pl.d.in.sync = refuse_sync;
	expect_shard_refused(&pl, FK_ERR_DATA, "cannot be sharded: the fake plugin finds no sample "
	                     "boundary it can cut at near byte 4\n");

	/* 0/1 and 1 shard ask nothing of the plugin */
	assert_int_equal(fk_input_open(&in, path), 0);
	assert_int_equal(fk_input_shard(&in, &pl, 0, 1), 0);
	assert_int_equal(fk_host.input_start(&in), 0);
	fk_input_close(&in);
	unlink(path);
}

static void test_folded_sync(void **state)
{
	struct fk_registry r;
	const struct fk_plugin *pl;
	ssize_t (*s)(const unsigned char *, size_t, int);

	(void)state;
	assert_int_equal(fk_registry_init(&r), 0);
	assert_int_equal(fk_registry_load_all(&r), 0);
	pl = fk_registry_find(&r, FK_PLUGIN_INPUT, "folded");
	assert_non_null(pl);
	s = pl->d.in.sync;
	assert_non_null(s);
	assert_int_equal(s((const unsigned char *)"x\nab", 4, 0), 2);
	assert_int_equal(s((const unsigned char *)"\nab", 3, 0), 1);
	assert_int_equal(s((const unsigned char *)"abc", 3, 0), 0);
	assert_int_equal(s((const unsigned char *)"abc", 3, 1), 3);
	assert_int_equal(s((const unsigned char *)"ab\n", 3, 0), 3);
	fk_registry_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ranges),
		cmocka_unit_test(test_window_doubles),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_folded_sync),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
