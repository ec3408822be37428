/*
 * --weight-field and --series-by-event (plugins/lib/perfscript/weights.c): the
 * A,B parser, and through the engine the two series' units and weights.
 * The field reader's own tests are in perf-fields.c.
 */
#include "testlib.h"

#include "../../plugins/lib/perfscript/internal.h"

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
		cmocka_unit_test(test_series_parse),
		cmocka_unit_test(test_units),
		cmocka_unit_test(test_series_profile),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
