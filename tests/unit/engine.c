/* Unit tests of the engine's data model: interning, the stack tree, sinks,
 * merging, input streams, writers and options. */
#define _GNU_SOURCE /* memrchr */
#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "testlib.h"
#include "folded/fkfolded.h"

static void test_intern_ids(void **state)
{
	struct fk_intern in;
	fk_frame_t a, b, c;

	(void)state;
	assert_int_equal(fk_intern_init(&in), 0);
	a = fk_intern(&in, "main", 4);
	b = fk_intern(&in, "work", 4);
	c = fk_intern(&in, "main", 4);
	assert_int_equal(a, 0);
	assert_int_equal(b, 1);
	assert_int_equal(c, a);
	assert_int_equal(fk_intern_find(&in, "work", 4), b);
	assert_int_equal(fk_intern_find(&in, "nope", 4), FK_FRAME_NONE);
	/* names may hold any byte, NUL included, and the empty name */
	assert_int_equal(fk_intern(&in, "a\0b", 3), 2);
	assert_int_equal(fk_intern(&in, "", 0), 3);
	assert_int_equal(fk_intern(&in, "a", 1), 4);
	assert_memory_equal(in.frames[2].name, "a\0b", 3);
	fk_intern_free(&in);
}

static void test_intern_annotations(void **state)
{
	struct fk_intern in;
	fk_frame_t k, k2, j;

	(void)state;
	assert_int_equal(fk_intern_init(&in), 0);
	k = fk_intern_annot(&in, "do_syscall", 10, FK_ANNOT_KERNEL);
	k2 = fk_intern(&in, "do_syscall_[k]", 14);
	j = fk_intern_annot(&in, "Interpreter_[j]", 15, FK_ANNOT_JIT); /* suffix not doubled */
	assert_int_equal(k, k2);
	assert_int_equal(in.frames[k].annot, FK_ANNOT_KERNEL);
	assert_int_equal(in.frames[k].display_len, 10);
	assert_int_equal(in.frames[k].len, 14);
	assert_string_equal(in.frames[j].name, "Interpreter_[j]");
	assert_int_equal(fk_annot_of("x_[i]", 5), FK_ANNOT_INLINE);
	assert_int_equal(fk_annot_of("x_[w]", 5), FK_ANNOT_WAKER);
	assert_int_equal(fk_annot_of("x_[z]", 5), FK_ANNOT_NONE);
	assert_int_equal(fk_annot_of("[k]", 3), FK_ANNOT_NONE);
	fk_intern_free(&in);
}

static void test_intern_many(void **state)
{
	struct fk_intern in;
	char name[32];

	(void)state;
	assert_int_equal(fk_intern_init(&in), 0);
	for (int i = 0; i < 200000; i++) {
		int n = snprintf(name, sizeof name, "func_%d", i);
		assert_int_equal(fk_intern(&in, name, (size_t)n), (fk_frame_t)i);
	}
	for (int i = 0; i < 200000; i += 997) {
		int n = snprintf(name, sizeof name, "func_%d", i);
		assert_int_equal(fk_intern_find(&in, name, (size_t)n), (fk_frame_t)i);
		assert_string_equal(in.frames[i].name, name);
	}
	fk_intern_free(&in);
}

static void test_intern_colour(void **state)
{
	struct fk_intern in;
	fk_frame_t a, b;

	(void)state;
	assert_int_equal(fk_intern_init(&in), 0);
	a = fk_intern(&in, "a", 1);
	b = fk_intern(&in, "b", 1);
	assert_null(fk_intern_colour(&in, a));
	assert_int_equal(fk_intern_set_colour(&in, a, "#ff0000"), 0);
	assert_int_equal(fk_intern_set_colour(&in, b, "#ff0000"), 0);
	assert_int_equal(in.ncolours, 1);
	assert_string_equal(fk_intern_colour(&in, b), "#ff0000");
	assert_int_equal(fk_intern_set_colour(&in, b, NULL), 0);
	assert_null(fk_intern_colour(&in, b));
	fk_intern_free(&in);
}

static fk_node_t add_path(struct fk_profile *p, const char *stack, double w)
{
	char buf[256];
	fk_node_t n = FK_NODE_ROOT;
	double ws[FK_SERIES_MAX] = { w, 0 };
	char *save = NULL, *tok;

	snprintf(buf, sizeof buf, "%s", stack);
	for (tok = strtok_r(buf, ";", &save); tok; tok = strtok_r(NULL, ";", &save))
		n = fk_tree_child(&p->tree, n, fk_intern(&p->in, tok, strlen(tok)));
	fk_tree_add(&p->tree, n, ws);
	return n;
}

static const char *node_name(const struct fk_profile *p, fk_node_t n)
{
	return p->in.frames[p->tree.nodes[n].frame].name;
}

static void test_tree_totals(void **state)
{
	struct fk_profile *p = fk_profile_new();
	fk_node_t ab, abc, ad;

	(void)state;
	assert_non_null(p);
	ab = add_path(p, "a;b", 2);
	abc = add_path(p, "a;b;c", 3);
	ad = add_path(p, "a;d", 0);
	assert_int_equal(add_path(p, "a;b;c", 1.5), abc);
	assert_int_equal(p->tree.nnodes, 5);
	assert_int_equal(p->tree.nodes[abc].parent, ab);
	assert_int_equal(p->tree.nodes[abc].depth, 3);
	assert_int_equal(fk_profile_finish(p), 0);
	assert_true(p->tree.total[FK_NODE_ROOT * FK_SERIES_MAX] == 6.5);
	assert_true(p->tree.total[ab * FK_SERIES_MAX] == 6.5);
	assert_true(p->tree.total[abc * FK_SERIES_MAX] == 4.5);
	assert_true(fk_node_leaf(&p->tree, ad)); /* a zero-count stack is kept */
	assert_true(p->tree.total[ad * FK_SERIES_MAX] == 0);
	fk_profile_free(p);
}

static void test_tree_sibling_order(void **state)
{
	struct fk_profile *p = fk_profile_new();
	const uint32_t *k;
	uint32_t nk;

	(void)state;
	/* "foo" only leads deeper (key "foo;"), so "foo.cold" (key "foo.cold",
	 * '.' < ';') goes first; "bar" ends a stack; "bar" < "baz". */
	add_path(p, "root;foo;x", 1);
	add_path(p, "root;foo.cold", 1);
	add_path(p, "root;baz", 1);
	add_path(p, "root;bar", 1);
	add_path(p, "root;Zed", 1);
	assert_int_equal(fk_profile_finish(p), 0);
	nk = p->tree.kid_start[2] - p->tree.kid_start[1];
	k = p->tree.kids + p->tree.kid_start[1];
	assert_int_equal(nk, 5);
	assert_string_equal(node_name(p, k[0]), "Zed");
	assert_string_equal(node_name(p, k[1]), "bar");
	assert_string_equal(node_name(p, k[2]), "baz");
	assert_string_equal(node_name(p, k[3]), "foo.cold");
	assert_string_equal(node_name(p, k[4]), "foo");
	fk_profile_free(p);

	/* with samples of its own, "foo" sorts by its bare name: before foo.cold */
	p = fk_profile_new();
	add_path(p, "foo.cold", 1);
	add_path(p, "foo", 1);
	add_path(p, "foo;x", 1);
	assert_int_equal(fk_profile_finish(p), 0);
	k = p->tree.kids + p->tree.kid_start[0];
	assert_string_equal(node_name(p, k[0]), "foo");
	assert_string_equal(node_name(p, k[1]), "foo.cold");
	fk_profile_free(p);
}

static void test_tree_deep(void **state)
{
	struct fk_profile *p = fk_profile_new();
	fk_node_t n = FK_NODE_ROOT;
	double w[FK_SERIES_MAX] = { 1, 0 };
	fk_frame_t f = fk_intern(&p->in, "r", 1), *path = NULL;
	size_t cap = 0, len = 0;

	(void)state;
	for (int i = 0; i < 100000; i++)
		n = fk_tree_child(&p->tree, n, f);
	fk_tree_add(&p->tree, n, w);
	assert_int_equal(p->tree.nodes[n].depth, 100000);
	assert_int_equal(fk_profile_finish(p), 0);
	assert_true(p->tree.total[1 * FK_SERIES_MAX] == 1);
	assert_int_equal(fk_tree_path(&p->tree, n, &path, &cap, &len), 0);
	assert_int_equal(len, 100000);
	assert_int_equal(path[99999], f);
	free(path);
	fk_profile_free(p);
}

static void test_sink_push_and_merge(void **state)
{
	struct fk_profile *a = fk_profile_new(), *b = fk_profile_new();
	struct fk_sink s;
	struct fk_frameref fr[3] = {
		{ "main", 4, 0, NULL, 0 },
		{ "sys_read", 8, FK_ANNOT_KERNEL, "[kernel]", 8 },
		{ "x", 1, 0, NULL, 0 },
	};
	struct fk_sample smp;
	fk_node_t leaf, leaf2;

	(void)state;
	memset(&smp, 0, sizeof smp);
	smp.frames = fr;
	smp.nframes = 2;
	smp.weight[0] = 5;
	fk_sink_init(&s, a, 1, 1, NULL); /* plain weights go to series 1 */
	assert_int_equal(fk_sink_push(&s, &smp, &leaf), 0);
	assert_int_equal(fk_sink_push_node(&s, leaf, &smp), 0);
	assert_true(fk_node_self(&a->tree, leaf, 1) == 10);
	assert_true(fk_node_self(&a->tree, leaf, 0) == 0);
	assert_int_equal(a->series_mask, 2);
	assert_string_equal(a->in.frames[a->tree.nodes[leaf].frame].name, "sys_read_[k]");
	assert_string_equal(a->in.frames[a->in.frames[a->tree.nodes[leaf].frame].module].name, "[kernel]");
	/* explicit series (a differential line) */
	smp.flags = FK_SAMPLE_SERIES;
	smp.weight[0] = 1;
	smp.weight[1] = 2;
	assert_int_equal(fk_sink_push(&s, &smp, NULL), 0);
	fk_sink_fini(&s);

	/* b interns in another order; merging maps the ids */
	fk_sink_init(&s, b, 1, 1, NULL);
	smp.flags = 0;
	smp.frames = fr + 2;
	smp.nframes = 1;
	smp.weight[0] = 7;
	assert_int_equal(fk_sink_push(&s, &smp, NULL), 0);
	smp.frames = fr;
	smp.nframes = 2;
	assert_int_equal(fk_sink_push(&s, &smp, NULL), 0);
	fk_sink_fini(&s);
	assert_int_equal(fk_profile_merge(a, b), 0);
	leaf2 = fk_tree_find_child(&a->tree, fk_tree_find_child(&a->tree, 0, fk_intern_find(&a->in, "main", 4)),
	                           fk_intern_find(&a->in, "sys_read_[k]", 12));
	assert_int_equal(leaf2, leaf);
	assert_true(fk_node_self(&a->tree, leaf, 0) == 1);
	assert_true(fk_node_self(&a->tree, leaf, 1) == 19);
	assert_int_not_equal(fk_tree_find_child(&a->tree, 0, fk_intern_find(&a->in, "x", 1)), FK_NODE_NONE);
	assert_int_equal(a->samples_pushed, 5);
	fk_profile_free(a);
	fk_profile_free(b);
}

static void test_push_separators(void **state)
{
	struct fk_profile *p = fk_profile_new();
	struct fk_sink s;
	struct fk_frameref fr = { "a;b\nc", 5, FK_ANNOT_KERNEL, NULL, 0 };
	struct fk_sample smp;
	fk_node_t leaf;

	(void)state;
	memset(&smp, 0, sizeof smp);
	smp.frames = &fr;
	smp.nframes = 1;
	smp.weight[0] = 1;
	fk_sink_init(&s, p, 0, 1, NULL);
	assert_int_equal(fk_sink_push(&s, &smp, &leaf), 0);
	fk_sink_fini(&s);
	assert_string_equal(p->in.frames[p->tree.nodes[leaf].frame].name, "a:b c_[k]");
	fk_profile_free(p);
}

/* Attributes (ABI 1.3): interned once per distinct list, kept per logged
 * sample, carried through a merge into a profile whose table differs. */
static void test_sample_attrs(void **state)
{
	struct fk_profile *p = fk_profile_new(), *q = fk_profile_new();
	struct fk_sink s;
	struct fk_frameref fr[1] = { { "a", 1, 0, NULL, 0 } };
	struct fk_attr wa[2] = { { "worker", 6, "a", 1 }, { "kind", 4, "x", 1 } };
	struct fk_attr wb[1] = { { "worker", 6, "b", 1 } };
	struct fk_sample_ext ext = FK_SAMPLE_EXT_INIT;
	struct fk_sample smp;
	const struct fk_attr *a0, *a1, *a2;
	fk_node_t node;
	size_t len;

	(void)state;
	p->keep_samples = q->keep_samples = true;
	memset(&smp, 0, sizeof smp);
	smp.frames = fr;
	smp.nframes = 1;
	smp.weight[0] = 1;
	fk_sink_init(&s, p, 0, 1, NULL);
	ext.attrs = wa;
	ext.nattrs = 2;
	assert_int_equal(fk_sink_push_ext(&s, FK_NODE_NONE, &smp, &ext, &node), 0);
	smp.flags = FK_SAMPLE_COMM;
	smp.comm = "java";
	smp.comm_len = 4;
	assert_int_equal(fk_sink_push_ext(&s, node, &smp, &ext, NULL), 0);
	ext.attrs = wb;
	ext.nattrs = 1;
	assert_int_equal(fk_sink_push_ext(&s, node, &smp, &ext, NULL), 0);
	assert_int_equal(fk_sink_push(&s, &smp, NULL), 0);
	fk_sink_fini(&s);
	assert_int_equal(p->log.n, 4);
	assert_int_equal(fk_host.sample_attrs(p, 0, &a0), 2);
	assert_int_equal(fk_host.sample_attrs(p, 1, &a1), 2);
	assert_ptr_equal(a0, a1); /* one copy of a list, whatever the samples */
	assert_int_equal(fk_host.sample_attrs(p, 2, &a2), 1);
	assert_memory_equal(a2[0].value, "b", 2);
	assert_int_equal(fk_host.sample_attrs(p, 3, &a2), 0);
	assert_null(a2);
	assert_null(fk_host.sample_comm(p, 0, &len));
	assert_string_equal(fk_host.sample_comm(p, 3, &len), "java");
	/* q interns other strings first: the merge maps p's ids into q's */
	ext.attrs = wb;
	fk_sink_init(&s, q, 0, 1, NULL);
	assert_int_equal(fk_sink_push_ext(&s, FK_NODE_NONE, &smp, &ext, NULL), 0);
	fk_sink_fini(&s);
	assert_int_equal(fk_profile_merge(q, p), 0);
	assert_int_equal(q->log.n, 5);
	assert_int_equal(fk_host.sample_attrs(q, 1, &a0), 2);
	assert_memory_equal(a0[1].key, "kind", 5);
	assert_memory_equal(a0[1].value, "x", 2);
	assert_int_equal(fk_host.sample_attrs(q, 0, &a1), 1);
	assert_int_equal(fk_host.sample_attrs(q, 3, &a2), 1);
	assert_ptr_equal(a1, a2);
	assert_string_equal(fk_host.sample_comm(q, 4, &len), "java");
	assert_int_equal(len, 4);
	fk_profile_free(p);
	fk_profile_free(q);
}

static void test_sample_log(void **state)
{
	struct fk_profile *p = fk_profile_new(), *r;
	struct fk_sink s;
	struct fk_frameref fr[2] = { { "a", 1, 0, NULL, 0 }, { "b", 1, 0, NULL, 0 } };
	struct fk_sample smp;

	(void)state;
	p->keep_samples = true;
	memset(&smp, 0, sizeof smp);
	smp.frames = fr;
	smp.nframes = 2;
	smp.weight[0] = 1;
	smp.flags = FK_SAMPLE_TIME | FK_SAMPLE_TID;
	smp.time_ns = 1000;
	smp.tid = 42;
	fk_sink_init(&s, p, 0, 1, NULL);
	assert_int_equal(fk_sink_push(&s, &smp, NULL), 0);
	smp.nframes = 1;
	smp.time_ns = 2000;
	assert_int_equal(fk_sink_push(&s, &smp, NULL), 0);
	fk_sink_fini(&s);
	assert_int_equal(p->log.n, 2);
	assert_int_equal(p->log.v[0].time_ns, 1000);
	assert_int_equal(p->log.v[0].tid, 42);
	assert_int_equal(p->log.v[0].pid, -1);
	assert_int_equal(p->tree.nodes[p->log.v[0].leaf].depth, 2);
	assert_int_equal(p->tree.nodes[p->log.v[1].leaf].depth, 1);
	/* reversing keeps the log pointing at the reversed leaves */
	r = fk_profile_reversed(p);
	assert_non_null(r);
	assert_int_equal(r->log.n, 2);
	assert_string_equal(r->in.frames[r->tree.nodes[r->log.v[0].leaf].frame].name, "a");
	assert_string_equal(r->in.frames[r->tree.nodes[r->tree.nodes[r->log.v[0].leaf].parent].frame].name, "b");
	fk_profile_free(r);
	fk_profile_free(p);
}

static void test_format_weight(void **state)
{
	char b[64];

	(void)state;
	fk_format_weight(b, sizeof b, 12);
	assert_string_equal(b, "12");
	fk_format_weight(b, sizeof b, 4294967296.0 * 3);
	assert_string_equal(b, "12884901888");
	fk_format_weight(b, sizeof b, 3.5);
	assert_string_equal(b, "3.5");
	fk_format_weight(b, sizeof b, 0);
	assert_string_equal(b, "0");
	/* integers past 9.2e18 in full, never "-9.22337203685478e+18", and
	 * each read back as the same double */
	{
		static const struct { double v; const char *s; } t[] = {
			{ -9223372036854775808.0, "-9223372036854775808" },
			{ 9223372036854775807.0, "9223372036854775808" },
			{ -18446744073709551616.0, "-18446744073709551616" },
			{ 1e30, "1000000000000000019884624838656" },
			{ -1, "-1" },
			{ -2.5, "-2.5" },
		};
		for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
			char line[80];
			double w[2];
			int two;
			fk_format_weight(b, sizeof b, t[i].v);
			assert_string_equal(b, t[i].s);
			snprintf(line, sizeof line, "a;b %s", b);
			assert_int_equal(fk_folded_line(line, strlen(line), w, &two), 3);
			assert_true(w[0] == t[i].v);
			assert_int_equal(two, 0);
		}
	}
}

/* lib/folded's frame splitting against Perl's split /;/ (what
 * flamegraph.pl does): perl -e 'print join("|", split /;/, $s)' gave the
 * expected fields, "|" joined; "-" for no field at all. */
static void test_folded_next(void **state)
{
	static const struct {
		const char *stack, *fields;
	} t[] = {
		{ "a;;b;c;;", "a||b|c" }, { "", "-" }, { ";", "-" }, { ";a", "|a" }, { "x", "x" },
		{ "main;f oo;bar", "main|f oo|bar" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		const char *s = t[i].stack, *f;
		size_t n = fk_folded_trim(s, strlen(s)), pos = 0, len;
		char got[64] = "";
		int k = 0;

		while ((f = fk_folded_next(s, n, &pos, &len)) != NULL) {
			if (k++)
				strcat(got, "|");
			strncat(got, f, len);
		}
		assert_string_equal(k ? got : "-", t[i].fields);
	}
}

static void read_all_lines(struct fk_input *in, struct fk_buf *out)
{
	const char *line;
	size_t len;
	int r;

	while ((r = fk_input_getline(in, &line, &len)) > 0) {
		fk_buf_append(out, line, len);
		fk_buf_append(out, "|", 1);
	}
	assert_int_equal(r, 0);
}

static void test_input_lines(void **state)
{
	struct fk_input in;
	struct fk_buf out = { 0 };
	static const char text[] = "a 1\r\nb 2\n\nlast";

	(void)state;
	assert_int_equal(fk_input_open_mem(&in, "mem", text, sizeof text - 1), 0);
	read_all_lines(&in, &out);
	assert_string_equal(out.data, "a 1|b 2||last|");
	assert_int_equal(in.lineno, 4);
	fk_input_close(&in);
	fk_buf_free(&out);
}

/* host->input_peek and input_consume: the bytes after the last line,
 * taken with their line count; getline goes on after them. */
static void test_input_peek_consume(void **state)
{
	struct fk_input in;
	static const char text[] = "head\n\tb 1\n\tc 2\n\nnext\r\nlast";
	const char *data, *line;
	size_t n, len;

	(void)state;
	assert_int_equal(fk_input_open_mem(&in, "mem", text, sizeof text - 1), 0);
	assert_int_equal(fk_input_getline(&in, &line, &len), 1);
	assert_int_equal(in.lineno, 1);
	assert_int_equal(fk_input_buffered(&in, &data, &n), 0);
	assert_int_equal(n, sizeof text - 1 - 5);
	assert_memory_equal(data, "\tb 1\n", 5);
	/* more than is buffered: refused, nothing taken */
	assert_int_equal(fk_input_consume(&in, n + 1, 9), FK_ERR_USAGE);
	assert_int_equal(in.lineno, 1);
	/* the body and its empty line */
	assert_int_equal(fk_input_consume(&in, 11, 3), 0);
	assert_int_equal(in.lineno, 4);
	assert_int_equal(fk_input_getline(&in, &line, &len), 1);
	assert_int_equal(len, 4);
	assert_memory_equal(line, "next", 4);
	assert_int_equal(in.lineno, 5);
	assert_int_equal(fk_input_buffered(&in, &data, &n), 0);
	assert_int_equal(n, 4);
	assert_int_equal(fk_input_consume(&in, 4, 0), 0);
	assert_int_equal(fk_input_buffered(&in, &data, &n), 0);
	assert_int_equal(n, 0);
	assert_int_equal(fk_input_getline(&in, &line, &len), 0);
	assert_int_equal(in.lineno, 5);
	fk_input_close(&in);
}

/* An input error prints "FILE:LINE: message" without the plugin's prefix,
 * marks the call as reported, and the plugin's later messages keep their
 * prefix; once the plugin's context is popped, the engine's have none. */
static void test_input_error_keeps_prefix(void **state)
{
	struct fk_plugin pl = { .prefix = (char *)"[input:test] " };
	struct fk_input in;

	(void)state;
	assert_int_equal(fk_input_open_mem(&in, "mem", "x\n", 2), 0);
	capture_start();
	{
		FK_CTX_SCOPE(cx, .plugin = &pl);
		assert_false(fk_ctx_reported(cx));
		assert_int_equal(fk_input_error(&in, 3, "bad %s", "thing"), FK_ERR_DATA);
		assert_true(fk_ctx_reported(cx));
		fk_log(FK_LOG_WARN, "later");
		assert_ptr_equal(fk_ctx_current(), cx);
	}
	assert_null(fk_ctx_current());
	fk_log(FK_LOG_WARN, "after");
	assert_string_equal(capture_text(), "mem:3: bad thing\n[input:test] later\nafter\n");
	capture_stop();
	fk_input_close(&in);
}

static char tmpdir[64];

static int make_tmpdir(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof tmpdir, "/tmp/fk-unit-XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

/* host->parse_chunks over a regular file whose plugin has sync(): the
 * workers read ranges of it themselves.  Worker 0 is slow, so worker 1,
 * done with its half, takes the back half of what worker 0 has left, again
 * and again: every line is parsed once, by some range, and the ranges
 * ordered by input_start give the file back; skipped lines and the first
 * error come out with whole-file line numbers. */
#define RANGE_LINES 400
struct seen {
	uint64_t start;  /* the range's input_start */
	unsigned seq;    /* the line's place in its range */
	unsigned worker;
	char text[16];
};
static struct seen seen[RANGE_LINES + 8];
static size_t nseen;
static pthread_mutex_t seen_mu = PTHREAD_MUTEX_INITIALIZER;
static unsigned w1_ranges;  /* range_parse calls of a worker but 0 */
static bool want_steals;    /* test_parse_ranges: worker 0 waits for them */
static bool w0_began;       /* worker 0 has read a line */

static ssize_t range_sync(const unsigned char *buf, size_t len, int eof)
{
	const unsigned char *nl = memchr(buf, '\n', len);
	return nl ? (ssize_t)(nl - buf) + 1 : eof ? (ssize_t)len : 0;
}

static size_t range_boundary(void *ctx, const char *buf, size_t len)
{
	const char *nl = memrchr(buf, '\n', len);
	(void)ctx;
	return nl ? (size_t)(nl - buf) + 1 : 0;
}

static int range_parse(void *ctx, unsigned worker, struct fk_input *in, struct fk_sink *sink)
{
	const char *line;
	size_t len;
	unsigned seq = 0, waited_ms = 0; /* this call's waits, 10 s at most */
	int r;

	(void)ctx;
	(void)sink;
	if (worker != 0) {
		pthread_mutex_lock(&seen_mu);
		w1_ranges++;
		pthread_mutex_unlock(&seen_mu);
		/* with want_steals, not before worker 0 has begun: a worker that
		 * finds no range under way to take from stops, and on a loaded
		 * machine worker 0 may start after worker 1 has finished */
		for (bool wait = true; wait && want_steals && waited_ms < 10000; waited_ms++) {
			pthread_mutex_lock(&seen_mu);
			wait = !w0_began;
			pthread_mutex_unlock(&seen_mu);
			if (wait)
				usleep(1000);
		}
	}
	while ((r = fk_input_getline(in, &line, &len)) > 0) {
		if (worker == 0) {
			pthread_mutex_lock(&seen_mu);
			w0_began = true;
			pthread_mutex_unlock(&seen_mu);
			/* slow, and with want_steals slower still until worker 1
			 * has taken two ranges (a loaded machine may start it
			 * late) */
			usleep(1000);
			for (bool wait = true; wait && want_steals && waited_ms < 10000; waited_ms++) {
				pthread_mutex_lock(&seen_mu);
				wait = w1_ranges < 2;
				pthread_mutex_unlock(&seen_mu);
				if (wait)
					usleep(1000);
			}
		}
		if (len >= 4 && memcmp(line, "skip", 4) == 0)
			fk_input_skip(in, in->lineno);
		if (len >= 4 && memcmp(line, "fail", 4) == 0)
			return fk_input_error(in, in->lineno, "bad line");
		pthread_mutex_lock(&seen_mu);
		if (nseen < RANGE_LINES + 8) {
			struct seen *e = &seen[nseen++];
			e->start = in->shard_start;
			e->seq = seq;
			e->worker = worker;
			snprintf(e->text, sizeof e->text, "%.*s", (int)len, line);
		}
		pthread_mutex_unlock(&seen_mu);
		seq++;
	}
	return r;
}

static int by_place(const void *a, const void *b)
{
	const struct seen *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

static int parse_file_by_ranges(const char *path, unsigned threads, struct fk_input *in)
{
	static const struct fk_chunk_ops ops = { range_boundary, range_parse };
	struct fk_plugin pl;
	struct fk_profile *p = fk_profile_new();
	struct fk_sink sink;
	int rc;

	memset(&pl, 0, sizeof pl);
	test_descriptor(&pl, FK_PLUGIN_INPUT, "range");
	pl.d.in.sync = range_sync;
	nseen = 0;
	assert_non_null(p);
	assert_int_equal(fk_input_open(in, path), 0);
	in->plugin = &pl;
	fk_sink_init(&sink, p, 0, threads, NULL);
	rc = fk_parse_chunks(in, &sink, &ops, NULL);
	fk_sink_fini(&sink);
	fk_profile_free(p);
	return rc;
}

static void test_parse_ranges(void **state)
{
	char path[128];
	FILE *f;
	struct fk_input in;
	size_t ranges = 0, by1 = 0;

	(void)state;
	snprintf(path, sizeof path, "%s/ranges.txt", tmpdir);
	assert_non_null(f = fopen(path, "w"));
	for (int i = 0; i < RANGE_LINES; i++)
		fprintf(f, i == 123 || i == 321 ? "skip%03d\n" : "line%03d\n", i);
	fclose(f);
	setenv("FLAMEKIT_CHUNK_BYTES", "64", 1); /* 64-byte reads, and ranges cut that small */
	w1_ranges = 0;
	w0_began = false;
	want_steals = true;
	assert_int_equal(parse_file_by_ranges(path, 2, &in), 0);
	want_steals = false;
	assert_int_equal(nseen, RANGE_LINES);
	qsort(seen, nseen, sizeof *seen, by_place);
	for (size_t i = 0; i < nseen; i++) {
		char want[16];
		snprintf(want, sizeof want, i == 123 || i == 321 ? "skip%03zu" : "line%03zu", i);
		assert_string_equal(seen[i].text, want);
		if (i == 0 || seen[i].start != seen[i - 1].start) {
			assert_int_equal(seen[i].start, i * 8); /* a range starts at a line */
			ranges++;
			by1 += seen[i].worker == 1;
		}
	}
	assert_true(ranges > 2); /* worker 1 took tails of worker 0's range */
	assert_true(by1 >= 2);
	assert_int_equal(in.lineno, RANGE_LINES);
	assert_int_equal(in.skipped, 2);
	assert_int_equal(in.skipped_first[0], 124);
	assert_int_equal(in.skipped_first[1], 322);
	fk_input_close(&in);

	/* the first error in file order, with its whole-file line number */
	assert_non_null(f = fopen(path, "w"));
	for (int i = 0; i < RANGE_LINES; i++)
		fprintf(f, i == 250 || i == 390 ? "fail%03d\n" : "line%03d\n", i);
	fclose(f);
	capture_start();
	assert_int_equal(parse_file_by_ranges(path, 2, &in), FK_ERR_DATA);
	{
		char want[256];
		snprintf(want, sizeof want, "%s:251: bad line\n", path);
		assert_non_null(strstr(capture_text(), want));
		assert_null(strstr(capture_text(), ":391:"));
	}
	capture_stop();
	fk_input_close(&in);
	unsetenv("FLAMEKIT_CHUNK_BYTES");
}


static void write_file(const char *path, const void *data, size_t n)
{
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, n, f), n);
	fclose(f);
}

static void test_input_long_line_and_gzip(void **state)
{
	char path[128], gzpath[128];
	size_t big = 3u << 20; /* longer than the 1 MiB buffer */
	char *data = malloc(big + 16);
	struct fk_input in;
	const char *line;
	size_t len;
	gzFile gz;

	(void)state;
	memset(data, 'x', big);
	memcpy(data + big, " 7\nnext 1\n", 10);
	snprintf(path, sizeof path, "%s/long.txt", tmpdir);
	write_file(path, data, big + 10);
	assert_int_equal(fk_input_open(&in, path), 0);
	assert_int_equal(fk_input_getline(&in, &line, &len), 1);
	assert_int_equal(len, big + 2);
	assert_memory_equal(line + big, " 7", 2);
	assert_int_equal(fk_input_getline(&in, &line, &len), 1);
	assert_int_equal(len, 6);
	assert_int_equal(fk_input_getline(&in, &line, &len), 0);
	fk_input_close(&in);

	/* the same through gzip, as two concatenated members */
	snprintf(gzpath, sizeof gzpath, "%s/long.txt.gz", tmpdir);
	gz = gzopen(gzpath, "wb");
	gzwrite(gz, data, (unsigned)(big / 2));
	gzclose(gz);
	gz = gzopen(gzpath, "ab");
	gzwrite(gz, data + big / 2, (unsigned)(big - big / 2 + 10));
	gzclose(gz);
	assert_int_equal(fk_input_open(&in, gzpath), 0);
	assert_non_null(in.gz);
	assert_int_equal(fk_input_getline(&in, &line, &len), 1);
	assert_int_equal(len, big + 2);
	assert_int_equal(fk_input_getline(&in, &line, &len), 1);
	assert_memory_equal(line, "next 1", 6);
	assert_int_equal(fk_input_getline(&in, &line, &len), 0);
	fk_input_close(&in);
	free(data);
}

static void test_input_errors(void **state)
{
	struct fk_input in;
	char path[128];
	const char *line;
	size_t len;
	static const unsigned char trunc[] = { 0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 0x4b };

	(void)state;
	capture_start();
	assert_int_equal(fk_input_open(&in, "/nonexistent/profile.txt"), FK_ERR_IO);
	assert_string_equal(capture_text(),
	                    "/nonexistent/profile.txt: cannot open: No such file or directory\n");
	capture_stop();

	snprintf(path, sizeof path, "%s/trunc.gz", tmpdir);
	write_file(path, trunc, sizeof trunc);
	capture_start();
	assert_int_equal(fk_input_open(&in, path), 0);
	assert_true(fk_input_getline(&in, &line, &len) < 0);
	assert_non_null(strstr(capture_text(), "trunc.gz: compressed data is truncated"));
	capture_stop();
	fk_input_close(&in);

	capture_start();
	assert_int_equal(fk_input_open_mem(&in, "p.txt", "x", 1), 0);
	fk_input_skip(&in, 3);
	fk_input_skip(&in, 9);
	fk_input_report(&in);
	assert_int_equal(fk_input_error(&in, 12, "bad %s", "thing"), FK_ERR_DATA);
	assert_string_equal(capture_text(),
	                    "p.txt: skipped 2 unreadable lines (lines 3, 9)\np.txt:12: bad thing\n");
	capture_stop();
	fk_input_close(&in);
}

static void slurp(const char *path, struct fk_buf *b)
{
	char tmp[4096];
	size_t n;
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	while ((n = fread(tmp, 1, sizeof tmp, f)) > 0)
		fk_buf_append(b, tmp, n);
	fclose(f);
}

static void test_writer_atomic(void **state)
{
	char path[128];
	struct fk_writer w;
	struct fk_buf b = { 0 };
	struct stat st;

	(void)state;
	snprintf(path, sizeof path, "%s/out.svg", tmpdir);
	write_file(path, "old", 3);
	assert_int_equal(fk_writer_open(&w, path), 0);
	assert_int_equal(fk_writer_printf(&w, "new %d", 1), 0);
	fk_writer_abort(&w); /* the old file is untouched */
	slurp(path, &b);
	assert_string_equal(b.data, "old");
	fk_buf_free(&b);
	assert_int_equal(fk_writer_open(&w, path), 0);
	assert_int_equal(fk_writer_printf(&w, "new %d", 2), 0);
	assert_int_equal(fk_writer_commit(&w), 0);
	slurp(path, &b);
	assert_string_equal(b.data, "new 2");
	fk_buf_free(&b);
	assert_int_equal(stat(path, &st), 0);
	assert_true((st.st_mode & 0444) == 0444 || (st.st_mode & 0400));

	capture_start();
	assert_int_equal(fk_writer_open(&w, "/nonexistent-dir/x.svg"), FK_ERR_IO);
	assert_string_equal(capture_text(), "/nonexistent-dir/x.svg: cannot create output file: "
	                    "No such file or directory\n");
	capture_stop();
}

static void test_writer_disk_full(void **state)
{
	struct fk_writer w;

	(void)state;
	/* /dev/full cannot be renamed over, so write through stdout's path:
	 * open it as a plain fd. */
	memset(&w, 0, sizeof w);
	assert_int_equal(fk_writer_open(&w, NULL), 0);
	w.fd = open("/dev/full", O_WRONLY);
	assert_true(w.fd >= 0);
	capture_start();
	for (int i = 0; i < 100000 && w.error == 0; i++)
		fk_writer_write(&w, "0123456789", 10);
	assert_int_equal(fk_writer_commit(&w), FK_ERR_IO);
	assert_string_equal(capture_text(), "<stdout>: write error: No space left on device\n");
	capture_stop();
}

static void test_alloc_failure(void **state)
{
	struct fk_intern in;
	char name[32];
	fk_frame_t last = 0;
	int i;

	(void)state;
	assert_int_equal(fk_intern_init(&in), 0);
	fk_alloc_fail_after(5);
	for (i = 0; i < 100000; i++) {
		int n = snprintf(name, sizeof name, "f%d", i);
		last = fk_intern(&in, name, (size_t)n);
		if (last == FK_FRAME_NONE)
			break;
	}
	fk_alloc_fail_after(-1);
	assert_int_equal(last, FK_FRAME_NONE);
	/* the table is still consistent after the failure */
	assert_int_equal(fk_intern_find(&in, "f0", 2), 0);
	assert_int_equal(fk_intern(&in, "f0", 2), 0);
	fk_intern_free(&in);
}

/* The VmFlags of the mapping that holds p ("" when none is found). */
static void vm_flags(const void *p, char *out, size_t cap)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[512];
	bool in = false;

	*out = '\0';
	if (!f)
		return;
	while (fgets(line, sizeof line, f)) {
		unsigned long lo, hi;
		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' '))
			in = (uintptr_t)p >= lo && (uintptr_t)p < hi;
		else if (in && strncmp(line, "VmFlags:", 8) == 0) {
			size_t n = strlen(line + 8);
			n = n < cap ? n : cap - 1;
			memcpy(out, line + 8, n);
			out[n] = '\0';
			break;
		}
	}
	fclose(f);
}

static bool advised(const void *p)
{
	char flags[256];
	vm_flags(p, flags, sizeof flags);
	return strstr(flags, " hg") != NULL;
}

/* fk_heap_tune: blocks of 4 MiB and more are 2 MiB-aligned, zeroed by
 * fk_calloc and advised on huge pages; growing and shrinking across that
 * size keeps the contents; a failed big realloc leaves the block alone;
 * the heap's growth is advised too.  (The program calls fk_heap_tune
 * first thing; here it is called mid-run, which it must also survive.) */
static void test_heap_tune(void **state)
{
	const size_t mib = (size_t)1 << 20;
	unsigned char *p, *q, *s;
	bool thp = access("/sys/kernel/mm/transparent_hugepage/enabled", F_OK) == 0;

	(void)state;
	fk_heap_tune();
	fk_heap_tune(); /* a second call changes nothing */
	p = fk_calloc(5 * mib, 1);
	assert_non_null(p);
	for (size_t i = 0; i < 5 * mib; i++)
		if (p[i])
			fail_msg("byte %zu of a 5 MiB fk_calloc is %d", i, p[i]);
#if defined(__linux__) && defined(__GLIBC__)
	assert_int_equal((uintptr_t)p % (2 * mib), 0);
	if (thp)
		assert_true(advised(p + 3 * mib));
#endif
	for (size_t i = 0; i < 5 * mib; i++)
		p[i] = (unsigned char)(i * 7 + 1);
	q = fk_realloc(p, 9 * mib); /* bigger */
	assert_non_null(q);
	for (size_t i = 0; i < 5 * mib; i++)
		if (q[i] != (unsigned char)(i * 7 + 1))
			fail_msg("byte %zu changed when the block grew", i);
	memset(q + 5 * mib, 0xab, 4 * mib);
	fk_alloc_fail_after(0);
	assert_null(fk_realloc(q, 12 * mib)); /* fails: q is untouched */
	assert_null(fk_malloc(6 * mib));
	assert_null(fk_calloc(6 * mib, 1));
	fk_alloc_fail_after(-1);
	assert_int_equal(q[9 * mib - 1], 0xab);
	p = fk_realloc(q, mib); /* below 4 MiB again */
	assert_non_null(p);
	for (size_t i = 0; i < mib; i++)
		if (p[i] != (unsigned char)(i * 7 + 1))
			fail_msg("byte %zu changed when the block shrank", i);
	s = fk_realloc(p, 6 * mib); /* from the heap to a big block */
	assert_non_null(s);
	for (size_t i = 0; i < mib; i++)
		if (s[i] != (unsigned char)(i * 7 + 1))
			fail_msg("byte %zu changed when the block moved to the big ones", i);
	fk_free(s);
#if defined(__linux__) && defined(__GLIBC__)
	if (thp) {
		/* grow the heap by small blocks: the part it grew by is advised */
		void *top0 = sbrk(0), *v[600];
		size_t n = 0;
		for (; n < 600 && sbrk(0) == top0; n++)
			assert_non_null(v[n] = fk_malloc(100000));
		if (sbrk(0) != top0) /* a malloc that does not use the heap (ASan) skips this */
			assert_true(advised(v[n - 1]));
		while (n > 0)
			fk_free(v[--n]);
	}
	if (thp) {
		/* 120 MB in the heap, freed (glibc trims past 64 MiB free at the
		 * top: the advice goes with the pages), then taken again: every
		 * block is on advised memory again */
		static void *v[1200];
		void *top1;
		for (size_t i = 0; i < 1200; i++)
			assert_non_null(v[i] = fk_malloc(100000));
		top1 = sbrk(0);
		for (size_t i = 1200; i > 0; i--)
			fk_free(v[i - 1]);
		if ((char *)sbrk(0) < (char *)top1) { /* trimmed (not under ASan) */
			for (size_t i = 0; i < 1200; i++)
				assert_non_null(v[i] = fk_malloc(100000));
			for (size_t i = 0; i < 1200; i += 50)
				if (!advised(v[i]))
					fail_msg("block %zu of 1200, at %p, is not on advised memory", i, v[i]);
			for (size_t i = 1200; i > 0; i--)
				fk_free(v[i - 1]);
		}
	}
#endif
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_intern_ids),
		cmocka_unit_test(test_intern_annotations),
		cmocka_unit_test(test_intern_many),
		cmocka_unit_test(test_intern_colour),
		cmocka_unit_test(test_tree_totals),
		cmocka_unit_test(test_tree_sibling_order),
		cmocka_unit_test(test_tree_deep),
		cmocka_unit_test(test_sink_push_and_merge),
		cmocka_unit_test(test_push_separators),
		cmocka_unit_test(test_sample_log),
		cmocka_unit_test(test_format_weight),
		cmocka_unit_test(test_folded_next),
		cmocka_unit_test(test_input_lines),
		cmocka_unit_test(test_parse_ranges),
		cmocka_unit_test(test_input_long_line_and_gzip),
		cmocka_unit_test(test_input_errors),
		cmocka_unit_test(test_writer_atomic),
		cmocka_unit_test(test_writer_disk_full),
		cmocka_unit_test(test_alloc_failure),
		cmocka_unit_test(test_heap_tune),
		cmocka_unit_test(test_sample_attrs),
		cmocka_unit_test(test_input_peek_consume),
		cmocka_unit_test(test_input_error_keeps_prefix),
	};
	return cmocka_run_group_tests(tests, make_tmpdir, NULL);
}
