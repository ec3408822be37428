/*
 * The perf input plugin through the engine: the metadata each record
 * carries into the sample log (time, PID, TID), the unit it names, and
 * the sample log's order with several threads.
 */
#include "testlib.h"

static struct fk_registry reg;
static const struct fk_plugin *perf;

static int setup(void **state)
{
	(void)state;
	if (fk_registry_init(&reg) < 0 || fk_registry_load_all(&reg) < 0)
		return -1;
	perf = fk_registry_find(&reg, FK_PLUGIN_INPUT, "perf");
	return perf ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	fk_registry_free(&reg);
	return 0;
}

static const char *fixture(const char *name)
{
	static char path[4096];
	snprintf(path, sizeof path, "%s/tests/data/perf/%s",
	         getenv("FK_SRCDIR") ? getenv("FK_SRCDIR") : ".", name);
	return path;
}

/* Parse a fixture into a new profile that keeps its sample log. */
static struct fk_profile *parse(const char *name, const char *opt, unsigned threads)
{
	struct fk_profile *p = fk_profile_new();
	const char *names[1] = { opt }, *values[1] = { NULL };
	struct fk_input_spec spec = { .path = fixture(name), .plugin = perf, .optnames = names,
	                              .optvalues = values, .nopts = opt ? 1 : 0 };
	assert_non_null(p);
	p->keep_samples = true;
	assert_int_equal(fk_parse_input(&reg, &spec, p, NULL, threads, false), 0);
	return p;
}

static void test_metadata(void **state)
{
	struct fk_profile *p;

	(void)state;
	p = parse("names.txt", NULL, 1);
	assert_int_equal(p->log.n, 5);
	/* "V8 WorkerThread 25607/25610 [001] 100.000100: 250000 cpu-clock:ppp:" */
	assert_int_equal(p->log.v[0].flags & (FK_SAMPLE_TIME | FK_SAMPLE_PID | FK_SAMPLE_TID),
	                 FK_SAMPLE_TIME | FK_SAMPLE_PID | FK_SAMPLE_TID);
	assert_int_equal(p->log.v[0].time_ns, 100000100000LL);
	assert_int_equal(p->log.v[0].pid, 25607);
	assert_int_equal(p->log.v[0].tid, 25610);
	assert_true(p->log.v[0].weight[0] == 250000);
	/* the indented "perf 1234/1234" header, then main's three records */
	assert_int_equal(p->log.v[1].time_ns, 100000200000LL);
	assert_int_equal(p->log.v[4].time_ns, 100000500000LL);
	assert_int_equal(p->log.v[4].tid, 44);
	assert_non_null(p->unit[0]);
	assert_string_equal(p->unit[0], "ns");
	fk_profile_free(p);
}

static void test_units(void **state)
{
	struct fk_profile *p;

	(void)state;
	p = parse("offcpu.txt", "offcpu", 1);
	assert_string_equal(p->unit[0], "us");
	/* charged at the switch-out: thread 101 at 10.000000 for 250 us */
	assert_int_equal(p->log.n, 3);
	assert_int_equal(p->log.v[0].tid, 101);
	assert_int_equal(p->log.v[0].time_ns, 10000000000LL);
	assert_true(p->log.v[0].weight[0] == 250);
	fk_profile_free(p);
	p = parse("events.txt", NULL, 1);
	assert_string_equal(p->unit[0], "events");
	assert_int_equal(p->log.n, 2);
	fk_profile_free(p);
}

/* With tiny chunks and 3 threads, the sample log is still in input order. */
static void test_threads_keep_order(void **state)
{
	struct fk_profile *a, *b;

	(void)state;
	setenv("FLAMEKIT_CHUNK_BYTES", "16", 1);
	a = parse("names.txt", NULL, 1);
	b = parse("names.txt", NULL, 3);
	unsetenv("FLAMEKIT_CHUNK_BYTES");
	assert_int_equal(a->log.n, b->log.n);
	for (size_t i = 0; i < a->log.n; i++) {
		assert_int_equal(a->log.v[i].time_ns, b->log.v[i].time_ns);
		assert_int_equal(a->log.v[i].tid, b->log.v[i].tid);
	}
	assert_string_equal(b->unit[0], "ns");
	fk_profile_free(a);
	fk_profile_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_metadata),
		cmocka_unit_test(test_units),
		cmocka_unit_test(test_threads_keep_order),
	};
	if (!getenv("FLAMEKIT_PLUGIN_PATH")) {
		printf("1..0 # SKIP FLAMEKIT_PLUGIN_PATH is not set\n");
		return 0;
	}
	return cmocka_run_group_tests(tests, setup, teardown);
}
