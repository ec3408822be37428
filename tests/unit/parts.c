/*
 * host->parse_parts, the engine service the perf-data plugin hands `perf
 * script`'s output through, tried with the folded plugin so that it is
 * seen to know no format: parts joined in order, line numbers and skipped
 * lines counted across parts, the plugin and its options found by name,
 * and pipes from input_open_fd read to the end; host->parse_streams with
 * callbacks of its own (part indices, finish once before the report).
 */
#include <sys/wait.h>
#include <unistd.h>

#include "testlib.h"

static struct fk_registry reg;

static int setup(void **state)
{
	(void)state;
	return fk_registry_init(&reg) < 0 || fk_registry_load_all(&reg) < 0 ? -1 : 0;
}

static int teardown(void **state)
{
	(void)state;
	fk_registry_free(&reg);
	return 0;
}

/* Open texts[0..n) as in-memory inputs named name: in[i], ins[i] its address. */
static void open_texts(struct fk_input *in, struct fk_input **ins, const char *const *texts,
                       size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(fk_input_open_mem(&in[i], name, texts[i], strlen(texts[i])), 0);
		ins[i] = &in[i];
	}
}

/* Append p's sample log to log, in push order: one leaf frame name a line. */
static void print_leaves(const struct fk_profile *p, struct fk_buf *log)
{
	for (size_t i = 0; i < p->log.n; i++) {
		fk_frame_t f = p->tree.nodes[p->log.v[i].leaf].frame;
		fk_buf_printf(log, "%s\n", p->in.frames[f].name);
	}
}

/* Parse texts[0..n) as the parts of one folded text; returns the status,
 * the profile's folded form in *folded (caller frees). */
static int parse_texts(const char *const *texts, size_t n, unsigned threads,
                       const char *opt, struct fk_buf *folded)
{
	struct fk_profile *p = fk_profile_new();
	struct fk_input in[4], *ins[4];
	struct fk_sink sink;
	const char *names[1] = { opt };
	int rc;

	assert_non_null(p);
	p->keep_samples = true;
	open_texts(in, ins, texts, n, "parts.txt");
	fk_sink_init(&sink, p, 0, threads, NULL);
	sink.reg = &reg;
	rc = fk_host.parse_parts("folded", names, NULL, opt ? 1 : 0, ins, n, &sink);
	fk_sink_fini(&sink);
	for (size_t i = 0; i < n; i++)
		fk_input_close(&in[i]);
	memset(folded, 0, sizeof *folded);
	if (rc == 0) {
		assert_int_equal(fk_profile_finish(p), 0);
		print_leaves(p, folded);
	}
	fk_profile_free(p);
	return rc;
}

static void test_order_and_lines(void **state)
{
	const char *parts[3] = { "main;a 1\nmain;b 2\n", "bad line\nmain;c 3\n", "main;d 4\nalso bad" };
	struct fk_buf out;

	(void)state;
	for (unsigned threads = 1; threads <= 3; threads++) {
		capture_start();
		assert_int_equal(parse_texts(parts, 3, threads, NULL, &out), 0);
		/* samples in part order, whatever the threads */
		assert_string_equal(out.data, "a\nb\nc\nd\n");
		/* lines 3 and 6 of the parts taken as one text */
		assert_string_equal(capture_text(),
		                    "parts.txt: skipped 2 unreadable lines (lines 3, 6)\n");
		capture_stop();
		fk_buf_free(&out);
	}
}

static void test_names(void **state)
{
	const char *parts[1] = { "main;a 1\n" };
	struct fk_profile *p = fk_profile_new();
	struct fk_input in, *ins[1] = { &in };
	struct fk_sink sink;
	struct fk_buf out;

	(void)state;
	capture_start();
	assert_int_equal(parse_texts(parts, 1, 1, "nosuch", &out), FK_ERR_USAGE);
	assert_string_equal(capture_text(), "the folded plugin has no option '--nosuch'\n");
	capture_stop();

	/* a sink that does not know the loaded plugins (none named "nosuch" either) */
	assert_int_equal(fk_input_open_mem(&in, "x.txt", "a 1\n", 4), 0);
	fk_sink_init(&sink, p, 0, 1, NULL);
	capture_start();
	assert_int_equal(fk_host.parse_parts("folded", NULL, NULL, 0, ins, 1, &sink), FK_ERR_PLUGIN);
	sink.reg = &reg;
	assert_int_equal(fk_host.parse_parts("nosuch", NULL, NULL, 0, ins, 1, &sink), FK_ERR_PLUGIN);
	assert_string_equal(capture_text(),
	                    "x.txt: needs the folded input plugin, which is not loaded\n"
	                    "x.txt: needs the nosuch input plugin, which is not loaded\n");
	capture_stop();
	fk_sink_fini(&sink);
	fk_input_close(&in);
	fk_profile_free(p);
}

/* Pipes: a writer bigger than a pipe's buffer finishes, each part read whole. */
static void test_pipes(void **state)
{
	struct fk_profile *p;
	struct fk_input *ins[2];
	struct fk_sink sink;
	pid_t kids[2];

	(void)state;
	for (int k = 0; k < 2; k++) {
		int fd[2];
		assert_int_equal(pipe(fd), 0);
		kids[k] = fork();
		assert_true(kids[k] >= 0);
		if (kids[k] == 0) {
			close(fd[0]);
			for (int i = 0; i < 20000; i++)
				dprintf(fd[1], "part%d;f%d 1\n", k, i % 7);
			_exit(0);
		}
		close(fd[1]);
		ins[k] = fk_host.input_open_fd(fd[0], "pipe");
		assert_non_null(ins[k]);
	}
	p = fk_profile_new(); /* after the forks: the writers own nothing to free */
	assert_non_null(p);
	fk_sink_init(&sink, p, 0, 2, NULL);
	sink.reg = &reg;
	assert_int_equal(fk_host.parse_parts("folded", NULL, NULL, 0, ins, 2, &sink), 0);
	fk_sink_fini(&sink);
	for (int k = 0; k < 2; k++) {
		assert_int_equal(fk_input_lines(ins[k]), 20000);
		fk_host.input_close(ins[k]);
		waitpid(kids[k], NULL, 0);
	}
	assert_int_equal(p->samples_pushed, 40000);
	assert_int_equal(p->tree.nnodes, 1 + 2 + 2 * 7); /* root, part0/1, f0..f6 under each */
	fk_profile_free(p);
}

/* ---- host->parse_streams: the caller's callbacks for the parts ---- */
struct streams_ctx {
	struct fk_input *const *ins;
	unsigned seen[4];  /* per part: its index matched its input */
	int finished;
};

/* Each line NAME a sample of one frame NAME; "bad" skipped, "err" an error. */
static int stream_part(void *vctx, unsigned part, struct fk_input *in, struct fk_sink *sink)
{
	struct streams_ctx *c = vctx;
	const char *line;
	size_t n;
	int r;

	c->seen[part] = c->ins[part] == in;
	while ((r = fk_host.getline(in, &line, &n)) > 0) {
		struct fk_frameref fr = { .name = line, .len = n };
		struct fk_sample smp = { .frames = &fr, .nframes = 1, .weight = { 1 } };
		if (n == 3 && memcmp(line, "bad", 3) == 0)
			fk_host.input_skip(in, fk_host.input_lineno(in));
		else if (n == 3 && memcmp(line, "err", 3) == 0)
			return fk_host.input_error(in, fk_host.input_lineno(in), "boom");
		else if (fk_host.push(sink, &smp, NULL) < 0)
			return FK_ERR_NOMEM;
	}
	return r;
}

/* The end of the whole: one more sample into the joined sink, a message. */
static int stream_finish(void *vctx, struct fk_sink *sink)
{
	struct streams_ctx *c = vctx;
	struct fk_frameref fr = { .name = "end", .len = 3 };
	struct fk_sample smp = { .frames = &fr, .nframes = 1, .weight = { 1 } };

	c->finished++;
	fk_host.log(FK_LOG_WARN, "finished");
	return fk_host.push(sink, &smp, NULL);
}

static int streams(const char *const *texts, size_t n, unsigned threads, struct streams_ctx *c,
                   struct fk_buf *log)
{
	static const struct fk_part_ops ops = { stream_part, stream_finish };
	struct fk_profile *p = fk_profile_new();
	struct fk_input in[4], *ins[4];
	struct fk_sink sink;
	int rc;

	assert_non_null(p);
	p->keep_samples = true;
	open_texts(in, ins, texts, n, "streams.txt");
	memset(c, 0, sizeof *c);
	c->ins = ins;
	fk_sink_init(&sink, p, 0, threads, NULL);
	assert_int_equal(fk_host.sink_keeps_samples(&sink), 1);
	rc = fk_host.parse_streams(ins, n, &sink, &ops, c);
	fk_sink_fini(&sink);
	for (size_t i = 0; i < n; i++)
		fk_input_close(&in[i]);
	memset(log, 0, sizeof *log);
	if (rc == 0)
		print_leaves(p, log);
	fk_profile_free(p);
	return rc;
}

static void test_streams(void **state)
{
	const char *parts[3] = { "a\nb\n", "bad\nc\n", "d\nbad\n" };
	const char *errs[3] = { "a\n", "b\nerr\n", "err\n" };
	struct streams_ctx c;
	struct fk_buf out;

	(void)state;
	for (unsigned threads = 1; threads <= 3; threads += 2) {
		capture_start();
		assert_int_equal(streams(parts, 3, threads, &c, &out), 0);
		/* parts in order, then what finish pushed; its message before the
		 * skipped lines, numbered through the parts */
		assert_string_equal(out.data, "a\nb\nc\nd\nend\n");
		assert_string_equal(capture_text(), "finished\n"
		                    "streams.txt: skipped 2 unreadable lines (lines 3, 6)\n");
		capture_stop();
		assert_true(c.seen[0] && c.seen[1] && c.seen[2]);
		assert_int_equal(c.finished, 1);
		fk_buf_free(&out);

		/* one part: into the sink itself */
		assert_int_equal(streams(parts, 1, threads, &c, &out), 0);
		assert_string_equal(out.data, "a\nb\nend\n");
		fk_buf_free(&out);

		/* the first error in part order, its line counted through the parts;
		 * no finish */
		capture_start();
		assert_int_equal(streams(errs, 3, threads, &c, &out), FK_ERR_DATA);
		assert_string_equal(capture_text(), "streams.txt:3: boom\n");
		capture_stop();
		assert_int_equal(c.finished, 0);
		fk_buf_free(&out);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order_and_lines),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_pipes),
		cmocka_unit_test(test_streams),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
