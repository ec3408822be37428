/*
 * The tracepoint field reader (plugins/input/perf/fields.c) that
 * --weight-field, --leak and --wakeups share: every form perf prints, the
 * block:* events' positions, and what it must refuse as missing or bad.
 */
#include "testlib.h"

#include "../../plugins/input/perf/internal.h"

static int field(const char *ev, const char *args, const char *name, uint64_t *v)
{
	*v = 12345;
	return perf_field_u64(ev, ev ? strlen(ev) : 0, args, strlen(args), name, strlen(name), v);
}

static void test_field_forms(void **state)
{
	uint64_t v;

	(void)state;
	assert_int_equal(field("kmem:kmalloc", "ptr=0x1 bytes_req=8 bytes_alloc=16 gfp_flags=GFP_KERNEL",
	                       "bytes_alloc", &v), PF_OK);
	assert_int_equal(v, 16);
	/* the syscalls' form, hex, a trailing comma, the last field */
	assert_int_equal(field("syscalls:sys_enter_mmap", "addr: 0x00000000, len: 0x00002000, prot: 0x3",
	                       "len", &v), PF_OK);
	assert_int_equal(v, 8192);
	assert_int_equal(field("syscalls:sys_enter_mmap", "addr: 0x0, len: 0xABCdef", "len", &v), PF_OK);
	assert_int_equal(v, 0xabcdef);
	/* blanks after '=' too; the first field of the arguments */
	assert_int_equal(field("e:e", "n= 7 m=8", "n", &v), PF_OK);
	assert_int_equal(v, 7);
	/* how the kernel prints a null pointer */
	assert_int_equal(field("kmem:kfree", "call_site=x ptr=(nil)", "ptr", &v), PF_OK);
	assert_int_equal(v, 0);
	assert_int_equal(field("e:e", "ptr: (nil), x: 1", "ptr", &v), PF_OK);
	assert_int_equal(v, 0);
	/* the no-name event (the caller does not know it) reads by name */
	assert_int_equal(field(NULL, "comm=cat pid=4242 prio=120", "pid", &v), PF_OK);
	assert_int_equal(v, 4242);
}

static void test_field_range(void **state)
{
	uint64_t v;

	(void)state;
	/* all of 64 bits in either base, leading zeros included; one more is bad */
	assert_int_equal(field("e:e", "n=0xffffffffffffffff", "n", &v), PF_OK);
	assert_true(v == UINT64_MAX);
	assert_int_equal(field("e:e", "n=0x0000ffffffffffffffff", "n", &v), PF_OK);
	assert_true(v == UINT64_MAX);
	assert_int_equal(field("e:e", "n=0x1ffffffffffffffff", "n", &v), PF_BAD);
	assert_int_equal(field("e:e", "n=18446744073709551615", "n", &v), PF_OK);
	assert_true(v == UINT64_MAX);
	assert_int_equal(field("e:e", "n=18446744073709551616", "n", &v), PF_BAD);
	assert_int_equal(field("e:e", "n=99999999999999999999", "n", &v), PF_BAD);
	assert_int_equal(field("e:e", "n=0", "n", &v), PF_OK);
	assert_int_equal(v, 0);
}

static void test_field_refused(void **state)
{
	uint64_t v;

	(void)state;
	/* only a whole field name at the start of a token */
	assert_int_equal(field("e:e", "xlen=5 len_x=6", "len", &v), PF_MISSING);
	assert_int_equal(field("e:e", "xlen=5 len=7", "len", &v), PF_OK);
	assert_int_equal(v, 7);
	assert_int_equal(field("sched:sched_wakeup", "comm=a prev_pid=3", "pid", &v), PF_MISSING);
	assert_int_equal(field("e:e", "comm=pid=3", "pid", &v), PF_MISSING);
	assert_int_equal(field("e:e", "len", "len", &v), PF_MISSING);
	assert_int_equal(field("e:e", "", "len", &v), PF_MISSING);
	/* the first occurrence decides */
	assert_int_equal(field("e:e", "len=x len=5", "len", &v), PF_BAD);
	assert_int_equal(field("e:e", "len=-4", "len", &v), PF_BAD);
	assert_int_equal(field("e:e", "len=4k", "len", &v), PF_BAD);
	assert_int_equal(field("e:e", "len=", "len", &v), PF_BAD);
	assert_int_equal(field("e:e", "len=, x=1", "len", &v), PF_BAD);
	assert_int_equal(field("e:e", "len=0x", "len", &v), PF_BAD);
	assert_int_equal(field("e:e", "len=0xg1", "len", &v), PF_BAD);
	assert_int_equal(field("e:e", "len=1.5", "len", &v), PF_BAD);
	assert_int_equal(field("e:e", "len=(nil)x", "len", &v), PF_BAD);
	assert_int_equal(field("e:e", "len=(null)", "len", &v), PF_BAD);
	/* no arguments, no name */
	assert_int_equal(perf_field_u64("e:e", 3, NULL, 0, "len", 3, &v), PF_MISSING);
	assert_int_equal(perf_field_u64("e:e", 3, "len=1", 5, "", 0, &v), PF_MISSING);
}

static void test_field_block(void **state)
{
	uint64_t v;

	(void)state;
	assert_int_equal(field("block:block_rq_issue", "254,0 WS 65536 () 20377144 + 128 0x2,0,4 [dd]",
	                       "nr_sector", &v), PF_OK);
	assert_int_equal(v, 128);
	assert_int_equal(field("block:block_rq_issue", "254,0 WS 65536 () 20377144 + 128 0x2,0,4 [dd]",
	                       "bytes", &v), PF_OK);
	assert_int_equal(v, 65536);
	assert_int_equal(field("block:block_bio_queue", "254,0 RA 12654536 + 8 [dd]", "nr_sector", &v),
	                 PF_OK);
	assert_int_equal(v, 8);
	assert_int_equal(field("block:block_bio_queue", "254,0 RA 12654536 + 8 [dd]", "bytes", &v),
	                 PF_MISSING);
	assert_int_equal(field("block:block_rq_complete", "254,0 W () 1 + x 0 [0]", "nr_sector", &v),
	                 PF_BAD);
	assert_int_equal(field("block:block_rq_complete", "254,0 W () 1 + 8 0 [0]", "sector", &v),
	                 PF_MISSING);
	/* the positions hold only for block:*: another event reads by name */
	assert_int_equal(field("e:e", "254,0 RA 12654536 + 8 [dd]", "nr_sector", &v), PF_MISSING);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_field_forms),
		cmocka_unit_test(test_field_range),
		cmocka_unit_test(test_field_refused),
		cmocka_unit_test(test_field_block),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
