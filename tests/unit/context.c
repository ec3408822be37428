/* Unit tests of the per-call context (engine/context.h): the prefix each
 * message gets, on the calling thread and on the workers the engine hands
 * work to; the "reported" mark and the one message a failed call gets;
 * quiet contexts. */
#define _GNU_SOURCE /* memrchr */
#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>

#include "testlib.h"

/* Messages from any thread, each line with the level's letter first:
 * "E:", "W:", "I:". */
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static struct fk_buf lines;

static void hook(int level, const char *line)
{
	pthread_mutex_lock(&mu);
	fk_buf_printf(&lines, "%c:%s\n", "EWID"[level], line);
	pthread_mutex_unlock(&mu);
}

static int start(void **state)
{
	(void)state;
	fk_buf_free(&lines);
	fk_log_hook = hook;
	return 0;
}

static int stop(void **state)
{
	(void)state;
	fk_log_hook = NULL;
	fk_buf_free(&lines);
	unsetenv("FLAMEKIT_CHUNK_BYTES");
	return 0;
}

static const char *got(void) { return lines.data ? lines.data : ""; }

static struct fk_plugin in_a = { .prefix = (char *)"[input:a] " };
static struct fk_plugin filter_b = { .prefix = (char *)"[filter:b] " };

/* Returns from inside two scopes: both are popped. */
static int leave_early(void)
{
	FK_CTX_SCOPE(cx, .plugin = &in_a);
	{
		FK_CTX_SCOPE(inner, .plugin = &filter_b);
		fk_log(FK_LOG_WARN, "inner");
		return 1;
	}
}

static void test_prefixes(void **state)
{
	(void)state;
	fk_log(FK_LOG_WARN, "none");
	{
		FK_CTX_SCOPE(a, .plugin = &in_a);
		fk_log(FK_LOG_WARN, "input");
		{
			FK_CTX_SCOPE(b, .plugin = &filter_b);
			fk_log(FK_LOG_WARN, "filter inside the input");
			fk_log_bare(FK_LOG_ERROR, "bare");
		}
		fk_log(FK_LOG_WARN, "the input's again");
		{
			FK_CTX_CALL(call); /* inherits */
			fk_log(FK_LOG_WARN, "a call inside the input");
			{
				FK_CTX_SCOPE(e, .flags = FK_CTX_ENGINE);
				fk_log(FK_LOG_WARN, "the engine");
			}
		}
		{
			FK_CTX_SCOPE(o, .plugin = &filter_b, .origin = "job.yaml:3:5");
			fk_log(FK_LOG_ERROR, "with its origin");
		}
	}
	assert_int_equal(leave_early(), 1);
	assert_null(fk_ctx_current());
	fk_log(FK_LOG_WARN, "none again");
	assert_string_equal(got(), "W:none\n"
	                           "W:[input:a] input\n"
	                           "W:[filter:b] filter inside the input\n"
	                           "E:bare\n"
	                           "W:[input:a] the input's again\n"
	                           "W:[input:a] a call inside the input\n"
	                           "W:the engine\n"
	                           "E:[filter:b] job.yaml:3:5: with its origin\n"
	                           "W:[filter:b] inner\n"
	                           "W:none again\n");
}

/* A failure logged inside a call marks it and the calls it serves; the
 * call's own message comes only when nothing inside said why. */
static void test_fail_once(void **state)
{
	(void)state;
	{
		FK_CTX_SCOPE(outer, .flags = FK_CTX_ENGINE, .instance = "in.txt");
		{
			FK_CTX_SCOPE(call, .instance = "out.svg");
			assert_int_equal(fk_ctx_fail(call, FK_ERR_NOMEM), FK_ERR_NOMEM);
			assert_true(fk_ctx_reported(call));
			assert_int_equal(fk_ctx_fail(call, FK_ERR_NOMEM), FK_ERR_NOMEM); /* once */
		}
		assert_true(fk_ctx_reported(outer));
	}
	{
		FK_CTX_SCOPE(outer, .flags = FK_CTX_ENGINE, .instance = "in.txt");
		{
			FK_CTX_SCOPE(pl, .plugin = &in_a);
			fk_log(FK_LOG_WARN, "a warning is no report");
		}
		assert_false(fk_ctx_reported(outer));
		{
			FK_CTX_SCOPE(pl, .plugin = &in_a);
			fk_log(FK_LOG_ERROR, "why");
		}
		assert_true(fk_ctx_reported(outer));
		assert_int_equal(fk_ctx_fail(outer, FK_ERR_DATA), FK_ERR_DATA);
		assert_int_equal(fk_ctx_fail(outer, 0), 0);
	}
	{
		FK_CTX_CALL(nameless);
		fk_ctx_fail(nameless, FK_ERR_LIMIT);
	}
	assert_string_equal(got(), "E:out.svg: out of memory\n"
	                           "W:[input:a] a warning is no report\n"
	                           "E:[input:a] why\n"
	                           "E:limit exceeded\n");
}

/* A quiet call prints nothing, even its own failure; it is marked (so it
 * does not say it twice), but the calls outside it are not: nobody was told. */
static void test_quiet(void **state)
{
	(void)state;
	{
		FK_CTX_SCOPE(outer, .instance = "x");
		{
			FK_CTX_SCOPE(q, .flags = FK_CTX_QUIET);
			{
				FK_CTX_SCOPE(pl, .plugin = &in_a);
				fk_log(FK_LOG_ERROR, "hidden");
				fk_log(FK_LOG_WARN, "hidden too");
				assert_true(fk_ctx_reported(pl));
			}
			assert_true(fk_ctx_reported(q));
			fk_ctx_fail(q, FK_ERR_DATA);
		}
		assert_false(fk_ctx_reported(outer));
		fk_ctx_fail(outer, FK_ERR_DATA);
	}
	assert_string_equal(got(), "E:x: bad input data\n");
}

static void test_verbosity(void **state)
{
	int was = fk_log_verbosity();

	(void)state;
	fk_log_set_verbosity(FK_LOG_ERROR);
	{
		FK_CTX_SCOPE(cx, .plugin = &in_a);
		fk_log(FK_LOG_WARN, "not shown");
		fk_log(FK_LOG_ERROR, "shown");
	}
	fk_log_set_verbosity(FK_LOG_INFO);
	fk_log(FK_LOG_INFO, "info");
	fk_log_set_verbosity(was);
	fk_log(FK_LOG_INFO, "not shown either");
	assert_string_equal(got(), "E:[input:a] shown\nI:info\n");
}

/* ---- workers ------------------------------------------------------------ */

#define NLINES 60
static pthread_t main_thread;
static int off_main; /* chunks parsed on another thread */

static size_t boundary(void *ctx, const char *buf, size_t len)
{
	const char *nl = memrchr(buf, '\n', len);
	(void)ctx;
	return nl ? (size_t)(nl - buf) + 1 : 0;
}

static ssize_t sync_nl(const unsigned char *buf, size_t len, int eof)
{
	const unsigned char *nl = memchr(buf, '\n', len);
	return nl ? (ssize_t)(nl - buf) + 1 : eof ? (ssize_t)len : 0;
}

/* Each line "warn" is a warning through the host table, as a plugin
 * logs; "fail" an error logged at once (not an input error, which a
 * worker keeps for the calling thread to report in order). */
static int parse_lines(void *ctx, unsigned worker, struct fk_input *in, struct fk_sink *sink)
{
	const char *line;
	size_t len;
	int r;

	(void)ctx;
	(void)worker;
	(void)sink;
	if (!pthread_equal(pthread_self(), main_thread)) {
		pthread_mutex_lock(&mu);
		off_main = 1;
		pthread_mutex_unlock(&mu);
	}
	while ((r = fk_input_getline(in, &line, &len)) > 0) {
		if (len == 4 && memcmp(line, "warn", 4) == 0)
			fk_host.log(FK_LOG_WARN, "a worker's warning");
		if (len == 4 && memcmp(line, "fail", 4) == 0) {
			fk_host.log(FK_LOG_ERROR, "a worker's error");
			return FK_ERR_DATA;
		}
	}
	return r;
}

static char *text(const char *last)
{
	struct fk_buf b = { 0 };

	for (int i = 0; i < NLINES; i++)
		fk_buf_printf(&b, "%s\n", i % 20 == 7 ? "warn" : "line");
	fk_buf_printf(&b, "%s\n", last);
	return b.data;
}

/* Every line of `got()` is `want`; returns how many there are. */
static int all_lines(const char *want)
{
	int n = 0;

	for (const char *p = got(), *nl; *p; p = nl + 1, n++) {
		nl = strchr(p, '\n');
		assert_non_null(nl);
		assert_memory_equal(p, want, strlen(want));
		assert_int_equal((size_t)(nl - p), strlen(want));
	}
	return n;
}

/* Parse NLINES lines and then `last` with parse_chunks on 3 threads, in
 * plugin a's context as fk_parse_input runs it, from memory (chunks) or
 * from a file (ranges); *reported: whether the call was marked. */
static int parse_as_a(const char *last, bool file, bool *reported)
{
	static const struct fk_chunk_ops ops = { boundary, parse_lines };
	struct fk_profile *p = fk_profile_new();
	char path[] = "/tmp/fk-ctx-XXXXXX", *data = text(last);
	struct fk_input in;
	struct fk_sink sink;
	int rc;
	FK_CTX_SCOPE(call, .flags = FK_CTX_ENGINE, .instance = "text");

	assert_non_null(p);
	main_thread = pthread_self();
	off_main = 0;
	setenv("FLAMEKIT_CHUNK_BYTES", "40", 1);
	test_descriptor(&in_a, FK_PLUGIN_INPUT, "a");
	in_a.d.in.sync = file ? sync_nl : NULL; /* a regular file with sync(): read by ranges */
	if (file) {
		int fd = mkstemp(path);
		assert_true(fd >= 0);
		assert_int_equal(write(fd, data, strlen(data)), (ssize_t)strlen(data));
		close(fd);
		assert_int_equal(fk_input_open(&in, path), 0);
		unlink(path);
	} else {
		assert_int_equal(fk_input_open_mem(&in, "text", data, strlen(data)), 0);
	}
	in.plugin = &in_a;
	in.ctx = call;
	fk_sink_init(&sink, p, 0, 3, NULL);
	{
		FK_CTX_SCOPE(pl, .plugin = &in_a);
		rc = fk_parse_chunks(&in, &sink, &ops, NULL);
	}
	fk_sink_fini(&sink);
	fk_input_close(&in);
	fk_profile_free(p);
	fk_free(data);
	in_a.d.in.sync = NULL;
	assert_true(off_main);
	*reported = fk_ctx_reported(call);
	return rc;
}

static void test_chunk_workers(void **state)
{
	bool reported;

	(void)state;
	assert_int_equal(parse_as_a("line", false, &reported), 0);
	assert_false(reported);
	assert_int_equal(all_lines("W:[input:a] a worker's warning"), 3);
}

/* The error a worker logs marks the call it parses for (the engine adds
 * no message of its own), by chunks and by ranges; every line a range
 * worker logs has the plugin's prefix. */
static void test_worker_error(void **state)
{
	(void)state;
	for (int file = 0; file < 2; file++) {
		bool reported;
		fk_buf_free(&lines);
		assert_int_equal(parse_as_a("fail", file, &reported), FK_ERR_DATA);
		assert_true(reported);
		assert_non_null(strstr(got(), "E:[input:a] a worker's error\n"));
		assert_non_null(strstr(got(), "W:[input:a] a worker's warning\n"));
		for (const char *p = got(); *p; p = strchr(p, '\n') + 1)
			assert_memory_equal(p + 2, "[input:a] ", 10);
	}
}

/* host->parse_parts: the parts are parsed on threads of their own by the
 * plugin named, in its context, not its caller's; the skipped-line report
 * is the engine's. */
static int part_parse(const struct fk_host *h, struct fk_input *in, struct fk_sink *sink,
                      const void *opts)
{
	const char *line;
	size_t len;
	int r;

	(void)sink;
	(void)opts;
	while ((r = h->getline(in, &line, &len)) > 0) {
		if (len == 4 && memcmp(line, "warn", 4) == 0)
			h->log(FK_LOG_WARN, "a part's warning");
		if (len == 4 && memcmp(line, "skip", 4) == 0)
			h->input_skip(in, h->input_lineno(in));
	}
	return r;
}

static void test_parts(void **state)
{
	static struct fk_plugin inner = { .prefix = (char *)"[input:inner] " };
	struct fk_plugin *v[1] = { &inner };
	struct fk_registry reg = { .v = v, .n = 1 };
	struct fk_profile *p = fk_profile_new();
	struct fk_input parts[3], *ins[3];
	struct fk_sink sink;
	int rc;

	(void)state;
	test_descriptor(&inner, FK_PLUGIN_INPUT, "inner");
	inner.d.in.parse = part_parse;
	assert_int_equal(fk_input_open_mem(&parts[0], "parts", "line\nwarn\n", 10), 0);
	assert_int_equal(fk_input_open_mem(&parts[1], "parts", "warn\nskip\n", 10), 0);
	assert_int_equal(fk_input_open_mem(&parts[2], "parts", "line\nwarn\n", 10), 0);
	for (int i = 0; i < 3; i++)
		ins[i] = &parts[i];
	fk_sink_init(&sink, p, 0, 3, NULL);
	sink.reg = &reg;
	{
		FK_CTX_SCOPE(outer, .plugin = &in_a);
		rc = fk_parse_parts("inner", NULL, NULL, 0, ins, 3, &sink);
		fk_log(FK_LOG_WARN, "the caller's again");
	}
	assert_int_equal(rc, 0);
	fk_sink_fini(&sink);
	fk_profile_free(p);
	for (int i = 0; i < 3; i++)
		fk_input_close(&parts[i]);
	/* the threads' order is theirs; the report and the caller's come last */
	assert_non_null(strstr(got(), "W:[input:inner] a part's warning\nW:[input:inner] a part's "
	                              "warning\nW:[input:inner] a part's warning\n"
	                              "W:parts: skipped 1 unreadable line (line 4)\n"
	                              "W:[input:a] the caller's again\n"));
	assert_int_equal(strlen(got()), 3 * strlen("W:[input:inner] a part's warning\n") +
	                                strlen("W:parts: skipped 1 unreadable line (line 4)\n") +
	                                strlen("W:[input:a] the caller's again\n"));
}

/* A thread the engine did not start (a plugin's own, as perf-data's text
 * writer) has no context; an input error it reports marks the call that
 * parses the input, so that call says nothing more. */
struct foreign {
	struct fk_input *in;
};

static void *foreign_main(void *arg)
{
	struct foreign *f = arg;

	assert_null(fk_ctx_current());
	fk_host.log(FK_LOG_WARN, "from a plugin's thread");
	fk_host.input_error(f->in, 0, "cut short");
	return NULL;
}

static void test_foreign_thread(void **state)
{
	struct fk_input in;
	struct foreign f = { &in };
	pthread_t th;

	(void)state;
	assert_int_equal(fk_input_open_mem(&in, "perf.data", "", 0), 0);
	{
		FK_CTX_SCOPE(call, .flags = FK_CTX_ENGINE, .instance = "perf.data");
		in.ctx = call;
		{
			FK_CTX_SCOPE(pl, .plugin = &in_a);
			assert_int_equal(pthread_create(&th, NULL, foreign_main, &f), 0);
			pthread_join(th, NULL);
		}
		assert_true(fk_ctx_reported(call));
		fk_ctx_fail(call, FK_ERR_DATA);
	}
	fk_input_close(&in);
	assert_string_equal(got(), "W:from a plugin's thread\nE:perf.data: cut short\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_prefixes, start, stop),
		cmocka_unit_test_setup_teardown(test_fail_once, start, stop),
		cmocka_unit_test_setup_teardown(test_quiet, start, stop),
		cmocka_unit_test_setup_teardown(test_verbosity, start, stop),
		cmocka_unit_test_setup_teardown(test_chunk_workers, start, stop),
		cmocka_unit_test_setup_teardown(test_worker_error, start, stop),
		cmocka_unit_test_setup_teardown(test_parts, start, stop),
		cmocka_unit_test_setup_teardown(test_foreign_thread, start, stop),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
