/* Unit tests of the job file reader (engine/ytree.c): what libyaml accepts
 * and a job must not (aliases, anchors, tags, duplicate keys, depth). */
#include <unistd.h>

#include "testlib.h"
#include "job.h"
#include "ytree.h"

/* The YAML reader alone: 0 when the text is a valid job document tree. */
static int parse_text(const char *name, const char *text, size_t len)
{
	struct ynode *doc;
	int rc = fk_yt_read(name, (const unsigned char *)text, len, &doc);

	fk_yt_free(doc);
	return rc;
}

static int parse(const char *text)
{
	return parse_text("t.yaml", text, strlen(text));
}

static void expect(const char *text, int rc, const char *msg)
{
	capture_start();
	assert_int_equal(parse(text), rc);
	assert_string_equal(capture_text(), msg);
	capture_stop();
}

static void test_valid(void **state)
{
	(void)state;
	expect("inputs: [a, {path: b, options: {x: 1}}]\nfilters: []\n", 0, "");
	expect("", 0, "");
	expect("# only a comment\n", 0, "");
	/* the same key in two different mappings is fine */
	expect("a: {k: 1}\nb: {k: 2}\n", 0, "");
}

static void test_duplicates(void **state)
{
	(void)state;
	expect("a: 1\nb:\n  c: 1\n  c: 2\n", FK_ERR_USAGE,
	       "t.yaml:4:3: duplicate key 'c' (first given at line 3, column 3)\n");
	/* "a" and 'a' are the same key */
	expect("a: 1\n'a': 2\n", FK_ERR_USAGE, "t.yaml:2:1: duplicate key 'a' (first given at line 1, column 1)\n");
}

static void test_aliases(void **state)
{
	(void)state;
	expect("a: &x 1\nb: *x\n", FK_ERR_USAGE, "t.yaml:1:4: anchors (&x) are not allowed in a job file\n");
	/* an alias to nothing: libyaml's parser passes it on, we refuse it */
	expect("b: *nowhere\n", FK_ERR_USAGE, "t.yaml:1:4: aliases (*nowhere) are not allowed in a job file\n");
	expect("b: !custom 1\n", FK_ERR_USAGE, "t.yaml:1:4: YAML tags (!custom) are not allowed in a job file\n");
}

static void test_billion_laughs(void **state)
{
	struct fk_buf b = { 0 };
	double t0;

	(void)state;
	/* a wide and deep alias bomb: refused at the first anchor, in no time */
	fk_buf_printf(&b, "l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
	for (int i = 1; i < 30; i++) {
		fk_buf_printf(&b, "l%d: &l%d [", i, i);
		for (int k = 0; k < 10; k++)
			fk_buf_printf(&b, "%s*l%d", k ? ", " : "", i - 1);
		fk_buf_printf(&b, "]\n");
	}
	t0 = fk_now();
	capture_start();
	assert_int_equal(parse_text("t.yaml", b.data, b.len), FK_ERR_USAGE);
	assert_string_equal(capture_text(), "t.yaml:1:5: anchors (&l0) are not allowed in a job file\n");
	capture_stop();
	assert_true(fk_now() - t0 < 5.0); /* a bound against hanging, not a timing */
	fk_buf_free(&b);
}

static void test_depth(void **state)
{
	struct fk_buf b = { 0 };

	(void)state;
	/* 64 nested collections are read; the 65th is refused */
	for (int i = 0; i < 64; i++)
		fk_buf_printf(&b, "[");
	for (int i = 0; i < 64; i++)
		fk_buf_printf(&b, "]");
	expect(b.data, 0, "");
	fk_buf_free(&b);
	for (int i = 0; i < 65; i++)
		fk_buf_printf(&b, "[");
	for (int i = 0; i < 65; i++)
		fk_buf_printf(&b, "]");
	expect(b.data, FK_ERR_USAGE, "t.yaml:1:65: nesting deeper than 64 levels\n");
	fk_buf_free(&b);
	/* a million open brackets: refused at the 65th, without recursion */
	for (int i = 0; i < 1000000; i++)
		fk_buf_append(&b, "[", 1);
	capture_start();
	assert_int_equal(parse_text("t.yaml", b.data, b.len), FK_ERR_USAGE);
	assert_string_equal(capture_text(), "t.yaml:1:65: nesting deeper than 64 levels\n");
	capture_stop();
	fk_buf_free(&b);
}

static void test_syntax(void **state)
{
	(void)state;
	expect("a: [1, 2\n", FK_ERR_USAGE,
	       "t.yaml:2:1: YAML syntax error: did not find expected ',' or ']' while parsing a flow sequence\n");
	expect("a: 1\n---\nb: 2\n", FK_ERR_USAGE, "t.yaml:2:1: a job file holds one YAML document only\n");
	expect("{[1]: 2}\n", FK_ERR_USAGE, "t.yaml:1:2: a key must be plain text, not a list\n");
	expect("a: \"\\xff\\x00\"\n", 0, "");
	expect("a: \xc3\x28\n", FK_ERR_USAGE, "t.yaml:1:5: YAML syntax error: invalid trailing UTF-8 octet\n");
}

static void test_nomem(void **state)
{
	(void)state;
	/* every allocation failure is reported, never a crash */
	for (long n = 0; n < 40; n++) {
		int rc;
		capture_start();
		fk_buf_reserve(&captured, 1024); /* the capture must not need memory */
		fk_alloc_fail_after(n);
		rc = parse("inputs: [a, {path: b, options: {x: 1}}]\nfilters: []\n");
		fk_alloc_fail_after(-1);
		assert_true(rc == 0 || (rc == FK_ERR_NOMEM && strcmp(capture_text(), "out of memory\n") == 0));
		capture_stop();
	}
}

static void put(const char *dir, const char *name, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_true(fputs(text, f) >= 0);
	assert_int_equal(fclose(f), 0);
}

/* A loaded job can be checked, then run, and run again: the filters'
 * options stay the job's (they once went to the first filter chain and
 * were freed with it, so a run after --check handed NULL options to the
 * plugins). */
static void test_check_then_run(void **state)
{
	char dir[] = "/tmp/fk-job-t.XXXXXX", path[512], text[256];
	struct fk_registry r;
	struct fk_job *j;
	size_t n;
	FILE *f;

	(void)state;
	if (!getenv("FLAMEKIT_PLUGIN_PATH"))
		skip();
	assert_non_null(mkdtemp(dir));
	put(dir, "a.folded", "a;b 1\na;c 2\n");
	put(dir, "f.lua", "function frame(f) if f.name == 'b' then f:rename('B') end end\n");
	put(dir, "job.yaml", "inputs: [a.folded]\nfilters: [{plugin: lua, script: f.lua}]\n"
	    "outputs: [{plugin: folded, path: out.folded}]\n");
	assert_int_equal(fk_registry_init(&r), 0);
	assert_int_equal(fk_registry_load_all(&r), 0);
	snprintf(path, sizeof path, "%s/job.yaml", dir);
	assert_int_equal(fk_job_load(&j, path, &r, NULL, 0), 0);
	assert_int_equal(fk_job_check(j), 0);
	assert_int_equal(fk_job_check(j), 0);
	for (int run = 0; run < 2; run++) {
		assert_int_equal(fk_job_run(j, 1, 1, 0), 0);
		snprintf(path, sizeof path, "%s/out.folded", dir);
		f = fopen(path, "r");
		assert_non_null(f);
		n = fread(text, 1, sizeof text - 1, f);
		text[n] = '\0';
		fclose(f);
		assert_string_equal(text, "a;B 1\na;c 2\n");
		unlink(path);
	}
	fk_job_free(j);
	fk_registry_free(&r);
	for (const char *const *p = (const char *const[]){ "a.folded", "f.lua", "job.yaml", NULL }; *p; p++) {
		snprintf(path, sizeof path, "%s/%s", dir, *p);
		unlink(path);
	}
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid),
		cmocka_unit_test(test_duplicates),
		cmocka_unit_test(test_aliases),
		cmocka_unit_test(test_billion_laughs),
		cmocka_unit_test(test_depth),
		cmocka_unit_test(test_syntax),
		cmocka_unit_test(test_nomem),
		cmocka_unit_test(test_check_then_run),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
