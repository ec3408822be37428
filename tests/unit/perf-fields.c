/*
 * The tracepoint field reader (plugins/lib/perfscript/fields.c) that
 * --weight-field, --leak and --wakeups share: every form perf prints, the
 * block:* events' positions, and what it must refuse as missing or bad.
 * One table of cases, each an event, its arguments, the field asked for,
 * and the status and value expected.
 */
#include "testlib.h"

#include "../../plugins/lib/perfscript/internal.h"

struct fcase {
	const char *ev, *args, *name;
	int want;
	uint64_t v; /* when want is PF_OK */
};

static void run_cases(const struct fcase *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t v = 12345;
		int rc = perf_field_u64(c[i].ev, c[i].ev ? strlen(c[i].ev) : 0, c[i].args,
		                        c[i].args ? strlen(c[i].args) : 0, c[i].name, strlen(c[i].name), &v);
		if (rc != c[i].want || (rc == PF_OK && v != c[i].v))
			fail_msg("%s field %s of \"%s\": status %d, value %llu; expected %d, %llu",
			         c[i].ev ? c[i].ev : "(no event)", c[i].name, c[i].args ? c[i].args : "(none)",
			         rc, (unsigned long long)v, c[i].want, (unsigned long long)c[i].v);
	}
}

static void test_field_forms(void **state)
{
	static const struct fcase c[] = {
		{ "kmem:kmalloc", "ptr=0x1 bytes_req=8 bytes_alloc=16 gfp_flags=GFP_KERNEL", "bytes_alloc",
		  PF_OK, 16 },
		/* the syscalls' form, hex, a trailing comma, the last field */
		{ "syscalls:sys_enter_mmap", "addr: 0x00000000, len: 0x00002000, prot: 0x3", "len", PF_OK, 8192 },
		{ "syscalls:sys_enter_mmap", "addr: 0x0, len: 0xABCdef", "len", PF_OK, 0xabcdef },
		/* blanks after '=' too; the first field of the arguments */
		{ "e:e", "n= 7 m=8", "n", PF_OK, 7 },
		/* how the kernel prints a null pointer, in either form */
		{ "kmem:kfree", "call_site=x ptr=(nil)", "ptr", PF_OK, 0 },
		{ "e:e", "ptr: (nil), x: 1", "ptr", PF_OK, 0 },
		/* without the event, by name */
		{ NULL, "comm=cat pid=4242 prio=120", "pid", PF_OK, 4242 },
	};
	(void)state;
	run_cases(c, sizeof c / sizeof *c);
}

static void test_field_range(void **state)
{
	/* all of 64 bits in either base, leading zeros included; one more is bad */
	static const struct fcase c[] = {
		{ "e:e", "n=0xffffffffffffffff", "n", PF_OK, UINT64_MAX },
		{ "e:e", "n=0x0000ffffffffffffffff", "n", PF_OK, UINT64_MAX },
		{ "e:e", "n=0x1ffffffffffffffff", "n", PF_BAD, 0 },
		{ "e:e", "n=18446744073709551615", "n", PF_OK, UINT64_MAX },
		{ "e:e", "n=18446744073709551616", "n", PF_BAD, 0 },
		{ "e:e", "n=99999999999999999999", "n", PF_BAD, 0 },
		{ "e:e", "n=0", "n", PF_OK, 0 },
	};
	(void)state;
	run_cases(c, sizeof c / sizeof *c);
}

static void test_field_refused(void **state)
{
	static const struct fcase c[] = {
		/* only a whole field name at the start of a token */
		{ "e:e", "xlen=5 len_x=6", "len", PF_MISSING, 0 },
		{ "e:e", "xlen=5 len=7", "len", PF_OK, 7 },
		{ "sched:sched_wakeup", "comm=a prev_pid=3", "pid", PF_MISSING, 0 },
		{ "e:e", "comm=pid=3", "pid", PF_MISSING, 0 },
		{ "e:e", "len", "len", PF_MISSING, 0 },
		{ "e:e", "", "len", PF_MISSING, 0 },
		{ "e:e", NULL, "len", PF_MISSING, 0 },
		{ "e:e", "len=1", "", PF_MISSING, 0 },
		/* the first occurrence decides */
		{ "e:e", "len=x len=5", "len", PF_BAD, 0 },
		{ "e:e", "len=-4", "len", PF_BAD, 0 },
		{ "e:e", "len=4k", "len", PF_BAD, 0 },
		{ "e:e", "len=", "len", PF_BAD, 0 },
		{ "e:e", "len=, x=1", "len", PF_BAD, 0 },
		{ "e:e", "len=0x", "len", PF_BAD, 0 },
		{ "e:e", "len=0xg1", "len", PF_BAD, 0 },
		{ "e:e", "len=1.5", "len", PF_BAD, 0 },
		{ "e:e", "len=(nil)x", "len", PF_BAD, 0 },
		{ "e:e", "len=(null)", "len", PF_BAD, 0 },
	};
	(void)state;
	run_cases(c, sizeof c / sizeof *c);
}

static void test_field_block(void **state)
{
	static const char issue[] = "254,0 WS 65536 () 20377144 + 128 0x2,0,4 [dd]";
	static const char queue[] = "254,0 RA 12654536 + 8 [dd]";
	static const struct fcase c[] = {
		{ "block:block_rq_issue", issue, "nr_sector", PF_OK, 128 },
		{ "block:block_rq_issue", issue, "bytes", PF_OK, 65536 },
		{ "block:block_bio_queue", queue, "nr_sector", PF_OK, 8 },
		{ "block:block_bio_queue", queue, "bytes", PF_MISSING, 0 },
		{ "block:block_rq_complete", "254,0 W () 1 + x 0 [0]", "nr_sector", PF_BAD, 0 },
		{ "block:block_rq_complete", "254,0 W () 1 + 8 0 [0]", "sector", PF_MISSING, 0 },
		/* the positions hold only for block:*: another event reads by name */
		{ "e:e", queue, "nr_sector", PF_MISSING, 0 },
	};
	(void)state;
	run_cases(c, sizeof c / sizeof *c);
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
