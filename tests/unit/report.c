/*
 * libfkreport (plugins/lib/report/): what report_encode writes,
 * report_decode and report_next read back exactly: names holding every byte
 * value (NUL too: names and thread names are counted, not terminated),
 * valid and broken UTF-8, U+2028; a deep stack and wide levels; weights of
 * 0, up to 2^53 as tree codes, up to 2^63 and fractions as "fw"; one and two
 * series; a timeline of many threads with names of every byte and of any
 * length, times near 2^63.  The model is built here, independently of the
 * engine; the comparison is field by field.  Forged data gives the
 * reader's exact sentences.
 */
#include "testlib.h"

#include "report.h"

/* The model profile. */
struct model {
	size_t nnames;
	char **names;
	size_t *len;
	size_t nnodes;
	struct report_node *nodes;
	int series;
	const char *unit;
	struct report_timeline tl;
	struct report_thread *threads;
	struct report_run *runs;
	size_t nruns;
};

static const char *m_name(void *ctx, size_t i, size_t *len)
{
	const struct model *m = ctx;
	*len = m->len[i];
	return m->names[i];
}

static void m_node(void *ctx, size_t i, struct report_node *n)
{
	const struct model *m = ctx;
	*n = m->nodes[i];
}

static const char *m_module(void *ctx, size_t k, size_t *len)
{
	(void)ctx;
	*len = 3;
	return k ? "b\0c" : "lib";
}

static size_t m_frame_module(void *ctx, size_t i)
{
	(void)ctx;
	return i % 3 == 0 ? SIZE_MAX : i % 2;
}

/* The names: 256 names of all byte values in turn (each name its own
 * rotation, so every byte stands everywhere), UTF-8 of every length,
 * broken UTF-8, U+2028 and U+2029, the empty name. */
static void make_names(struct model *m)
{
	static const char *const extra[] = { "\xc3\xa9t\xc3\xa9", "\xe2\x80\xa8", "\xe2\x80\xa9", "\xf0\x9f\x94\xa5",
	                                     "\xc0\x80", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xe2\x82", "\x80\xbf",
	                                     "</script><!--", "a\\\"b", "" };
	size_t ne = sizeof extra / sizeof extra[0];

	m->nnames = 256 + ne;
	m->names = calloc(m->nnames, sizeof *m->names);
	m->len = calloc(m->nnames, sizeof *m->len);
	for (size_t i = 0; i < 256; i++) {
		m->names[i] = malloc(256);
		m->len[i] = 256;
		for (size_t j = 0; j < 256; j++)
			m->names[i][j] = (char)((i + j) & 0xff);
	}
	for (size_t i = 0; i < ne; i++) {
		m->len[256 + i] = strlen(extra[i]);
		m->names[256 + i] = malloc(m->len[256 + i] + 1);
		memcpy(m->names[256 + i], extra[i], m->len[256 + i] + 1);
	}
}

static void add_node(struct model *m, uint32_t depth, uint32_t frame, int32_t parent, int end, double w0, double w1)
{
	struct report_node *n = &m->nodes[m->nnodes++];

	memset(n, 0, sizeof *n);
	n->depth = depth;
	n->frame = frame;
	n->parent = parent;
	n->end = (unsigned char)end;
	n->w[0] = end ? w0 : 0;
	n->w[1] = end ? w1 : 0;
}

#define DEEP 3000

/* A chain DEEP long, stacks ending along it, then wide levels under the
 * root, weights from w(k, series). */
static void make_tree(struct model *m, double (*w)(size_t k, int s))
{
	m->nodes = calloc(DEEP + 2000, sizeof *m->nodes);
	m->nnodes = 0;
	for (uint32_t d = 1; d <= DEEP; d++)
		add_node(m, d, (d * 7) % (uint32_t)m->nnames, (int32_t)d - 2, d % 5 == 0 || d == DEEP,
		         w(m->nnodes, 0), w(m->nnodes, 1));
	for (uint32_t k = 0; k < 600; k++) {
		int32_t top = (int32_t)m->nnodes;
		add_node(m, 1, k % (uint32_t)m->nnames, -1, k % 2, w(m->nnodes, 0), w(m->nnodes, 1));
		add_node(m, 2, (k + 1) % (uint32_t)m->nnames, top, 1, w(m->nnodes, 0), w(m->nnodes, 1));
		if (k % 3 == 0)
			add_node(m, 3, (k + 2) % (uint32_t)m->nnames, top + 1, 1, w(m->nnodes, 0), w(m->nnodes, 1));
	}
}

static double w_int(size_t k, int s)
{
	static const double v[] = { 0, 1, 2, 43, 44, 1935, 1936, 9007199254740991.0, 9007199254740990.0, 100000 };
	return v[(k + (size_t)s * 3) % 10];
}

static double w_big(size_t k, int s)
{
	static const double v[] = { 0, 9223372036854774784.0, 9223372036854775807.0, 0.5, 1e-300,
	                            9007199254740993.0, 12345.678, 1 };
	return v[(k + (size_t)s) % 8];
}

struct text {
	char *p;
	size_t n;
};

static int collect(void *ctx, const void *p, size_t len)
{
	struct text *t = ctx;
	t->p = realloc(t->p, t->n + len + 1);
	memcpy(t->p + t->n, p, len);
	t->n += len;
	return 0;
}

/* The model encoded, as a page: the data between its tags. */
static char *encode(const struct model *m, size_t *len)
{
	static struct report_out o;
	struct text t = { 0 };
	struct report_src src = {
		.title = "t\xff<", .palette = "hot", .unit = m->unit, .units = { "u0\x01", NULL },
		.series = m->series, .nnames = m->nnames, .nmodules = 2, .nnodes = m->nnodes, .name = m_name,
		.module = m_module, .frame_module = m_frame_module, .node = m_node,
		.timeline = m->threads ? &m->tl : NULL, .ctx = (void *)m,
	};

	memset(&o, 0, offsetof(struct report_out, buf));
	o.write = collect;
	o.ctx = &t;
	collect(&t, REPORT_MAGIC REPORT_DATA_OPEN, strlen(REPORT_MAGIC REPORT_DATA_OPEN));
	assert_int_equal(report_encode(&fk_host, &o, &src), 0);
	assert_int_equal(report_flush(&o), 0);
	collect(&t, REPORT_DATA_CLOSE, strlen(REPORT_DATA_CLOSE));
	t.p[t.n] = 0;
	/* no byte of a name can end the element */
	assert_ptr_equal(strstr(strstr(t.p, REPORT_DATA_OPEN) + 1, "</"), t.p + t.n - strlen(REPORT_DATA_CLOSE));
	*len = t.n;
	return t.p;
}

static void compare_tree(const struct model *m, const struct report *r)
{
	assert_int_equal(r->series, m->series);
	assert_int_equal(r->unit_len, strlen(m->unit));
	assert_memory_equal(r->unit, m->unit, r->unit_len);
	assert_int_equal(r->nnames, m->nnames);
	for (size_t i = 0; i < m->nnames; i++) {
		assert_int_equal(r->name_len[i], m->len[i]);
		if (m->len[i])
			assert_memory_equal(r->names[i], m->names[i], m->len[i]);
	}
	assert_int_equal(r->nnodes, m->nnodes);
	for (size_t k = 0; k < m->nnodes; k++) {
		const struct report_node *a = &m->nodes[k], *b = &r->nodes[k];
		assert_int_equal(b->depth, a->depth);
		assert_int_equal(b->frame, a->frame);
		assert_int_equal(b->parent, a->parent);
		assert_int_equal(b->end, a->end);
		/* exact doubles: a weight comes back to the last bit */
		assert_true(b->w[0] == a->w[0]);
		assert_true(b->w[1] == (m->series == 2 ? a->w[1] : 0));
	}
}

static void free_model(struct model *m)
{
	for (size_t i = 0; i < m->nnames; i++)
		free(m->names[i]);
	free(m->names);
	free(m->len);
	free(m->nodes);
	for (size_t i = 0; m->threads && i < m->tl.nthreads; i++)
		free((char *)m->threads[i].comm);
	free(m->threads);
	free(m->runs);
}

/* The model encoded and decoded into *r, its tree compared; the page, to
 * free once r is done with. */
static char *roundtrip(const struct model *m, struct report *r)
{
	size_t len;
	char *page = encode(m, &len);

	assert_int_equal(report_open(r, &fk_host, page, len), 0);
	assert_int_equal(report_decode(r, UINT64_MAX), 0);
	compare_tree(m, r);
	return page;
}

static void roundtrip_tree(int series, double (*w)(size_t, int))
{
	struct model m = { .series = series, .unit = "by\xfftes\x01" };
	struct report r;
	struct report_sample s;
	char *page;

	make_names(&m);
	make_tree(&m, w);
	page = roundtrip(&m, &r);
	assert_int_equal(r.has_timeline, 0);
	assert_int_equal(report_next(&r, &s), 0);
	report_free(&r);
	free(page);
	free_model(&m);
}

static void test_tree_one_series(void **state)
{
	(void)state;
	roundtrip_tree(1, w_int);
}

static void test_tree_two_series(void **state)
{
	(void)state;
	roundtrip_tree(2, w_int);
}

static void test_tree_big_weights(void **state)
{
	(void)state;
	roundtrip_tree(1, w_big);
	roundtrip_tree(2, w_big);
}

static double w_timeline(size_t k, int s)
{
	(void)s;
	return (double)(k % 4) * 1e15 + 1e15; /* what the runs weigh, at least */
}

#define NTHREADS 40

/* Threads named with every byte value (], [, ", NUL among them) and one
 * name 2,000 bytes long; runs of every kind, times near 2^63. */
static void make_timeline(struct model *m, int same)
{
	size_t nends = 0, *ends = calloc(m->nnodes, sizeof *ends), r = 0;

	for (size_t k = 0; k < m->nnodes; k++)
		if (m->nodes[k].end)
			ends[nends++] = k;
	m->threads = calloc(NTHREADS, sizeof *m->threads);
	m->runs = calloc(NTHREADS * 50, sizeof *m->runs);
	for (size_t t = 0; t < NTHREADS; t++) {
		struct report_thread *th = &m->threads[t];
		size_t n = t == NTHREADS - 1 ? 2000 : 16;
		char *c = malloc(n);
		for (size_t j = 0; j < n; j++)
			c[j] = (char)((t * 16 + j) & 0xff);
		th->pid = t == 0 ? -1 : (int32_t)(t * 1000);
		th->tid = t == 1 ? -1 : t == 2 ? INT32_MAX : (int32_t)(t * 1000 + 7);
		th->comm = t == 3 ? NULL : c;
		th->comm_len = t == 3 ? 0 : n;
		if (t == 3)
			free(c);
		th->nruns = t == 4 ? 0 : 1 + t % 50;
		for (uint64_t k = 0; k < th->nruns; k++, r++) {
			struct report_run *u = &m->runs[r];
			u->db = k == 0 ? t * 1000 : k % 3 == 0 ? 0 : k * 44 * 44;
			u->leaf = (r * 13) % (nends + 1); /* 0: the empty stack */
			u->cnt = 1 + k % 5;
			u->w = same ? 7 : k % 2 ? 0 : (uint64_t)1 << (r % 40);
		}
	}
	m->nruns = r;
	m->tl = (struct report_timeline){ .nthreads = NTHREADS, .threads = m->threads, .runs = m->runs,
	                                  .timed = 1, .t0ns = INT64_MAX - ((int64_t)1 << 40), .quantum = 3,
	                                  .same = same, .sweight = 7 };
	free(ends);
}

static void roundtrip_timeline(int same)
{
	struct model m = { .series = 1, .unit = "samples" };
	struct report r;
	struct report_sample s;
	size_t nends = 0, *ends, k = 0;
	char *page;

	make_names(&m);
	make_tree(&m, w_timeline);
	make_timeline(&m, same);
	page = roundtrip(&m, &r);
	assert_int_equal(r.has_timeline, 1);
	assert_int_equal(r.timed, 1);
	assert_true(r.t0ns == m.tl.t0ns);
	assert_int_equal(r.quantum, 3);
	assert_true(r.sweight == (same ? 7 : -1));
	assert_int_equal(r.nthreads, NTHREADS);
	for (size_t t = 0; t < NTHREADS; t++) {
		assert_int_equal(r.threads[t].pid, m.threads[t].pid);
		assert_int_equal(r.threads[t].tid, m.threads[t].tid);
		assert_int_equal(r.threads[t].nruns, m.threads[t].nruns);
		assert_int_equal(r.threads[t].comm_len, m.threads[t].comm_len);
		assert_int_equal(!r.threads[t].comm, !m.threads[t].comm);
		if (m.threads[t].comm)
			assert_memory_equal(r.threads[t].comm, m.threads[t].comm, m.threads[t].comm_len);
	}
	ends = calloc(m.nnodes, sizeof *ends);
	for (size_t i = 0; i < m.nnodes; i++)
		if (m.nodes[i].end)
			ends[nends++] = i;
	/* every run with a stack, in order, each at its time */
	for (size_t t = 0; t < NTHREADS; t++) {
		int64_t b = 0;
		for (uint64_t j = 0; j < m.threads[t].nruns; j++, k++) {
			const struct report_run *u = &m.runs[k];
			b += (int64_t)u->db;
			if (!u->leaf)
				continue;
			assert_int_equal(report_next(&r, &s), 1);
			assert_int_equal(s.thread, t);
			assert_int_equal(s.node, ends[u->leaf - 1]);
			assert_true(s.time_ns == m.tl.t0ns + b * 3);
			assert_true(s.weight == (same ? 7 : (double)u->w));
			assert_int_equal(s.cnt, u->cnt);
		}
	}
	assert_int_equal(k, m.nruns);
	assert_int_equal(report_next(&r, &s), 0);
	free(ends);
	report_free(&r);
	free(page);
	free_model(&m);
}

static void test_timeline_weights(void **state)
{
	(void)state;
	roundtrip_timeline(0);
}

static void test_timeline_same(void **state)
{
	(void)state;
	roundtrip_timeline(1);
}

/* A page as the reader gets it, its data given. */
static int decode_text(const char *data, struct report *r)
{
	char page[4096];
	int rc;

	snprintf(page, sizeof page, "%s%s%s%s", REPORT_MAGIC, REPORT_DATA_OPEN, data, REPORT_DATA_CLOSE);
	if ((rc = report_open(r, &fk_host, page, strlen(page))) < 0)
		return rc;
	rc = report_decode(r, 1 << 20);
	if (rc == 0) {
		struct report_sample s;
		while ((rc = report_next(r, &s)) > 0)
			;
	}
	return rc;
}

static void forged(const char *data, int want, const char *err)
{
	struct report r;
	int rc = decode_text(data, &r);

	if (rc != want)
		fail_msg("%s: %d, not %d (%s)", data, rc, want, r.err);
	if (err)
		assert_string_equal(r.err, err);
	report_free(&r);
}

static void test_forged(void **state)
{
	struct report r;
	char page[256];

	(void)state;
	forged("{\"tree\":\"000\"}", FK_ERR_DATA, "the report has no frame-name table");
	forged("{\"names\":[\"a\",\"b", FK_ERR_DATA, "frame name 2 of the report is not a valid string");
	forged("{\"names\":[\"a\\ud800\"],\"tree\":\"\"}", FK_ERR_DATA,
	       "frame name 1 of the report is not a valid string");
	forged("{\"names\":[\"a\"]}", FK_ERR_DATA, "the report has no stack tree");
	forged("{\"names\":[\"a\"],\"tree\":\"001010\"}", FK_ERR_DATA, "the report's stack tree is damaged at node 1");
	forged("{\"names\":[\"a\"],\"tree\":\"0ZZZZZZZZZZZZZZ00\"}", FK_ERR_DATA,
	       "the report's stack tree is damaged at node 0");
	forged("{\"series\":2,\"names\":[\"a\"],\"tree\":\"001\"}", FK_ERR_DATA,
	       "the report has two series but no second weights");
	forged("{\"series\":2,\"names\":[\"a\"],\"tree\":\"001\",\"tree2\":\"\"}", FK_ERR_DATA,
	       "the report's second series is damaged at node 0");
	forged("{\"names\":[\"a\"],\"tree\":\"001\",\"fw\":[nan]}", FK_ERR_DATA,
	       "the report's weights are damaged at node 0");
	forged("{\"names\":[\"a\"],\"tree\":\"001\",\"fw\":[0x10]}", FK_ERR_DATA,
	       "the report's weights are damaged at node 0");
	forged("{\"names\":[\"a\"],\"tree\":\"003\",\"threads\":[[1,2]],\"quantum\":0,\"timeline\":\"\"}",
	       FK_ERR_DATA, "the report's timeline is damaged");
	forged("{\"names\":[\"a\"],\"tree\":\"003\",\"threads\":[[1,2]],\"quantum\":1,\"timeline\":\"!!!!\"}",
	       FK_ERR_DATA, "the report's timeline is damaged (not deflated base64)");
	/* "1", "0", "1", "9", "9" deflated: one run of 9 samples weighing 9 on a node of weight 2 */
	forged("{\"names\":[\"a\"],\"tree\":\"003\",\"threads\":[[1,2]],\"quantum\":1,\"timeline\":\"MzQwtLQEAA==\"}",
	       FK_ERR_DATA, "the report's timeline is damaged");
	/* the same run, of one sample of 1: fine */
	forged("{\"names\":[\"a\"],\"tree\":\"003\",\"threads\":[[1,2]],\"quantum\":1,\"timeline\":\"MzQwNDQEAA==\"}", 0,
	       NULL);
	forged("{\"names\":[\"a\"],\"tree\":\"003\",\"threads\":[[1,2,\"x\"],[3,4,\"y\" 5]],\"quantum\":1,\"timeline\":\"MzQwNDQEAA==\"}",
	       FK_ERR_DATA, "the report's timeline is damaged");
	snprintf(page, sizeof page, "%s%s{", REPORT_MAGIC, REPORT_DATA_OPEN);
	assert_int_equal(report_open(&r, &fk_host, page, strlen(page)), FK_ERR_DATA);
	assert_string_equal(r.err, "the report's data has no end (</script>): the file is cut short");
	report_free(&r);
	assert_int_equal(report_open(&r, &fk_host, REPORT_MAGIC, strlen(REPORT_MAGIC)), FK_ERR_DATA);
	assert_string_equal(r.err, "not a flamekit HTML report: no <script type=\"application/json\" "
	                    "id=\"fk-data\"> ... </script> element");
	report_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tree_one_series),
		cmocka_unit_test(test_tree_two_series),
		cmocka_unit_test(test_tree_big_weights),
		cmocka_unit_test(test_timeline_weights),
		cmocka_unit_test(test_timeline_same),
		cmocka_unit_test(test_forged),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
