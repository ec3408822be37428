/*
 * --weight-field and --series-by-event (plugins/input/perf/weights.c): the
 * field reader on every form perf prints and on what it must refuse, the
 * A,B parser, and through the engine the two series' units and weights.
 */
#include "testlib.h"

#include "../../plugins/input/perf/internal.h"

static int field(const char *ev, const char *args, const char *name, double *w)
{
	*w = -1;
	return perf_field_weight(ev, ev ? strlen(ev) : 0, args, strlen(args), name, strlen(name), w);
}

static void test_field_forms(void **state)
{
	double w;

	(void)state;
	assert_int_equal(field("kmem:kmalloc", "ptr=0x1 bytes_req=8 bytes_alloc=16 gfp_flags=GFP_KERNEL",
	                       "bytes_alloc", &w), WF_OK);
	assert_true(w == 16);
	/* the syscalls' form, hex, a trailing comma, the last field */
	assert_int_equal(field("syscalls:sys_enter_mmap", "addr: 0x00000000, len: 0x00002000, prot: 0x3",
	                       "len", &w), WF_OK);
	assert_true(w == 8192);
	assert_int_equal(field("syscalls:sys_enter_mmap", "addr: 0x0, len: 0xABCdef", "len", &w), WF_OK);
	assert_true(w == 0xabcdef);
	/* 16 hex digits and 19 decimal ones fit 64 bits; one more does not */
	assert_int_equal(field("e:e", "n=0xffffffffffffffff", "n", &w), WF_OK);
	assert_true(w == 18446744073709551615.0);
	assert_int_equal(field("e:e", "n=0x1ffffffffffffffff", "n", &w), WF_BAD);
	assert_int_equal(field("e:e", "n=9999999999999999999", "n", &w), WF_OK);
	assert_int_equal(field("e:e", "n=99999999999999999999", "n", &w), WF_BAD);
	assert_int_equal(field("e:e", "n=0", "n", &w), WF_OK);
	assert_true(w == 0);
}

static void test_field_refused(void **state)
{
	double w;

	(void)state;
	/* only a whole field name at the start of a token */
	assert_int_equal(field("e:e", "xlen=5 len_x=6", "len", &w), WF_MISSING);
	assert_int_equal(field("e:e", "xlen=5 len=7", "len", &w), WF_OK);
	assert_true(w == 7);
	assert_int_equal(field("e:e", "len", "len", &w), WF_MISSING);
	assert_int_equal(field("e:e", "len=-4", "len", &w), WF_BAD);
	assert_int_equal(field("e:e", "len=4k", "len", &w), WF_BAD);
	assert_int_equal(field("e:e", "len=", "len", &w), WF_BAD);
	assert_int_equal(field("e:e", "len=0x", "len", &w), WF_BAD);
	assert_int_equal(field("e:e", "len=0xg1", "len", &w), WF_BAD);
	assert_int_equal(field("e:e", "len=1.5", "len", &w), WF_BAD);
	assert_int_equal(perf_field_weight("e:e", 3, NULL, 0, "len", 3, &w), WF_MISSING);
}

static void test_field_block(void **state)
{
	double w;

	(void)state;
	assert_int_equal(field("block:block_rq_issue", "254,0 WS 65536 () 20377144 + 128 0x2,0,4 [dd]",
	                       "nr_sector", &w), WF_OK);
	assert_true(w == 128);
	assert_int_equal(field("block:block_rq_issue", "254,0 WS 65536 () 20377144 + 128 0x2,0,4 [dd]",
	                       "bytes", &w), WF_OK);
	assert_true(w == 65536);
	assert_int_equal(field("block:block_bio_queue", "254,0 RA 12654536 + 8 [dd]", "nr_sector", &w),
	                 WF_OK);
	assert_true(w == 8);
	assert_int_equal(field("block:block_bio_queue", "254,0 RA 12654536 + 8 [dd]", "bytes", &w),
	                 WF_MISSING);
	assert_int_equal(field("block:block_rq_complete", "254,0 W () 1 + x 0 [0]", "nr_sector", &w),
	                 WF_BAD);
	assert_int_equal(field("block:block_rq_complete", "254,0 W () 1 + 8 0 [0]", "sector", &w),
	                 WF_MISSING);
}

static void test_series_parse(void **state)
{
	struct kept_event ev[2];

	(void)state;
	assert_int_equal(perf_series_parse("cycles,instructions", ev), 0);
	assert_string_equal(ev[0].name, "cycles");
	assert_int_equal(ev[0].len, 6);
	assert_string_equal(ev[1].name, "instructions");
	assert_int_equal(perf_series_parse("cycles", ev), FK_ERR_USAGE);
	assert_int_equal(perf_series_parse("a,b,c", ev), FK_ERR_USAGE);
	assert_int_equal(perf_series_parse(",b", ev), FK_ERR_USAGE);
	assert_int_equal(perf_series_parse("a,", ev), FK_ERR_USAGE);
	assert_int_equal(perf_series_parse("a,a", ev), FK_ERR_USAGE);
	assert_int_equal(perf_series_parse("a, b", ev), FK_ERR_USAGE);
	assert_int_equal(perf_series_parse(NULL, ev), FK_ERR_USAGE);
}

static void test_units(void **state)
{
	(void)state;
	assert_string_equal(perf_weight_unit("bytes_alloc"), "bytes");
	assert_string_equal(perf_weight_unit("len"), "bytes");
	assert_string_equal(perf_weight_unit("nr_sector"), "sectors");
	assert_string_equal(perf_weight_unit("order"), "order");
}

/* Through the engine: a series profile has both series' units and each
 * sample's weight in its own series. */
static void test_series_profile(void **state)
{
	struct fk_registry reg;
	const struct fk_plugin *perf;
	struct fk_profile *p = fk_profile_new();
	const char *names[1] = { "series-by-event" }, *values[1] = { "cpu-clock,page-faults" };
	char path[4096];
	size_t a = 0, b = 0;

	(void)state;
	snprintf(path, sizeof path, "%s/tests/data/perf/weights-series.txt",
	         getenv("FK_SRCDIR") ? getenv("FK_SRCDIR") : ".");
	assert_int_equal(fk_registry_init(&reg), 0);
	assert_int_equal(fk_registry_load_all(&reg), 0);
	perf = fk_registry_find(&reg, FK_PLUGIN_INPUT, "perf");
	assert_non_null(perf);
	assert_non_null(p);
	p->keep_samples = true;
	struct fk_input_spec spec = { .path = path, .plugin = perf, .optnames = names,
	                              .optvalues = values, .nopts = 1 };
	assert_int_equal(fk_parse_input(&reg, &spec, p, NULL, 2, false), 0);
	assert_string_equal(p->unit[0], "ns");
	assert_string_equal(p->unit[1], "page-faults");
	assert_int_equal(p->series_mask, 3);
	for (size_t i = 0; i < p->log.n; i++) {
		const struct fk_logged_sample *s = &p->log.v[i];
		assert_true((s->weight[0] == 0) != (s->weight[1] == 0));
		a += s->weight[0] != 0;
		b += s->weight[1] != 0;
	}
	/* the capture's 40 cpu-clock and 48 page-faults records */
	assert_int_equal(a, 40);
	assert_int_equal(b, 48);
	fk_profile_free(p);
	fk_registry_free(&reg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_field_forms),
		cmocka_unit_test(test_field_refused),
		cmocka_unit_test(test_field_block),
		cmocka_unit_test(test_series_parse),
		cmocka_unit_test(test_units),
		cmocka_unit_test(test_series_profile),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
