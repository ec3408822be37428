/* Unit tests of the one caller of plugin callbacks (engine/calls.h): each
 * callback runs in its plugin's context; a member past the descriptor's
 * struct_size (a plugin built against an older ABI) or of another kind is
 * absent whatever its bytes hold; what a callback returns is brought into
 * the range <flamekit/plugin.h> promises, and a status it should not
 * return is said once. */
#include <math.h>

#include "testlib.h"

static const struct fk_plugin *seen; /* the plugin of the context a callback ran in */

static void note_context(void)
{
	struct fk_ctx *cx = fk_ctx_current();

	seen = cx ? cx->plugin : NULL;
}

static int probe_250(const unsigned char *buf, size_t len)
{
	(void)buf;
	(void)len;
	note_context();
	return 250;
}
static int probe_neg(const unsigned char *buf, size_t len) { (void)buf; (void)len; return -5; }
static int probe_42(const unsigned char *buf, size_t len) { (void)buf; (void)len; return 42; }

static int parse_rc; /* what parse returns */
static bool parse_says; /* whether it logs an error first */

static int parse(const struct fk_host *h, struct fk_input *in, struct fk_sink *s, const void *o)
{
	(void)in;
	(void)s;
	(void)o;
	note_context();
	if (parse_says)
		h->log(FK_LOG_ERROR, "broken");
	return parse_rc;
}

static ssize_t sync_far(const unsigned char *buf, size_t len, int eof)
{
	(void)buf;
	(void)eof;
	note_context();
	return (ssize_t)len + 100;
}

static double weight_rc;
static double min_weight(const struct fk_host *h, const void *o, double total)
{
	(void)h;
	(void)o;
	(void)total;
	note_context();
	return weight_rc;
}

static int render(const struct fk_host *h, const struct fk_profile *p, struct fk_writer *w,
                  const void *o)
{
	(void)h;
	(void)p;
	(void)w;
	(void)o;
	return 7;
}

static int frame(void *st, struct fk_frame_edit *e) { (void)st; (void)e; return 0; }
static int sample(void *st, struct fk_sample_edit *e) { (void)st; (void)e; return 0; }
static unsigned uses_sample_and_more(void *st) { (void)st; return FK_FILTER_USES_SAMPLE | 0x80u; }

static size_t boundary_far(void *ctx, const char *buf, size_t len)
{
	(void)ctx;
	(void)buf;
	return len * 2;
}

static int chunk_parse(void *ctx, unsigned w, struct fk_input *in, struct fk_sink *s)
{
	(void)ctx;
	(void)w;
	(void)in;
	(void)s;
	return parse_rc;
}

static struct fk_plugin input = { .prefix = (char *)"[input:t] " };

static void test_guards(void **state)
{
	struct fk_plugin filter = { .prefix = (char *)"[filter:f] " };
	struct fk_filter_inst fi = { .plugin = &filter };

	(void)state;
	test_descriptor(&input, FK_PLUGIN_INPUT, "t");
	input.d.in.parse = parse;
	input.d.in.sync = sync_far;
	assert_true(fk_plugin_has(&input, FK_CB_PARSE));
	assert_true(fk_plugin_has(&input, FK_CB_SYNC));
	assert_false(fk_plugin_has(&input, FK_CB_PROBE));
	assert_false(fk_plugin_has(&input, FK_CB_RENDER)); /* another kind's */
	/* an ABI 1.0 input ends after parse: sync's bytes do not count */
	input.d.h.struct_size = (uint32_t)offsetof(struct fk_input_plugin, sync);
	assert_true(fk_plugin_has(&input, FK_CB_PARSE));
	assert_false(fk_plugin_has(&input, FK_CB_SYNC));
	/* the demangle default, 1.9: asked of a plugin that says 1.9 or later */
	test_descriptor(&input, FK_PLUGIN_INPUT, "t");
	input.d.in.demangle = FK_DEMANGLE_SHORT;
	assert_int_equal(fk_input_demangle(&input), FK_DEMANGLE_NO);
	input.d.h.abi_minor = 9;
	assert_int_equal(fk_input_demangle(&input), FK_DEMANGLE_SHORT);
	input.d.h.struct_size = (uint32_t)offsetof(struct fk_input_plugin, demangle);
	assert_int_equal(fk_input_demangle(&input), FK_DEMANGLE_NO);

	/* a filter's uses(), appended after 1.0, narrows what it sets */
	test_descriptor(&filter, FK_PLUGIN_FILTER, "f");
	filter.d.filter.frame = frame;
	filter.d.filter.sample = sample;
	assert_int_equal(fk_call_uses(&fi), FK_FILTER_USES_FRAME | FK_FILTER_USES_SAMPLE);
	filter.d.filter.uses = uses_sample_and_more;
	assert_int_equal(fk_call_uses(&fi), FK_FILTER_USES_SAMPLE);
	filter.d.h.struct_size = (uint32_t)offsetof(struct fk_filter_plugin, uses);
	assert_int_equal(fk_call_uses(&fi), FK_FILTER_USES_FRAME | FK_FILTER_USES_SAMPLE);
	assert_false(fk_plugin_has(&filter, FK_CB_SYNC)); /* sample's bytes, in an input's place */
	fk_call_destroy(&fi); /* none: nothing called */
	assert_int_equal(fk_call_create(&fi), 0);
}

static void test_ranges(void **state)
{
	struct fk_plugin out = { .prefix = (char *)"[output:o] " };
	static const struct fk_chunk_ops ops = { boundary_far, chunk_parse };

	(void)state;
	test_descriptor(&input, FK_PLUGIN_INPUT, "t");
	assert_int_equal(fk_call_probe(&input, (const unsigned char *)"x", 1), -1);
	input.d.in.probe = probe_250;
	seen = NULL;
	assert_int_equal(fk_call_probe(&input, (const unsigned char *)"x", 1), 100);
	assert_ptr_equal(seen, &input);
	assert_null(fk_ctx_current());
	input.d.in.probe = probe_neg;
	assert_int_equal(fk_call_probe(&input, (const unsigned char *)"x", 1), 0);
	input.d.in.probe = probe_42;
	assert_int_equal(fk_call_probe(&input, (const unsigned char *)"x", 1), 42);

	input.d.in.sync = sync_far;
	seen = NULL;
	assert_int_equal(fk_call_sync(&input, (const unsigned char *)"abc", 3, 0), 3);
	assert_ptr_equal(seen, &input);
	assert_int_equal(fk_call_boundary(&ops, NULL, "abcd", 4), 4);

	test_descriptor(&out, FK_PLUGIN_OUTPUT, "o");
	assert_true(fk_call_min_weight(&out, NULL, 100) < 0); /* none */
	out.d.out.min_weight = min_weight;
	weight_rc = 2.5;
	seen = NULL;
	assert_true(fk_call_min_weight(&out, NULL, 100) == 2.5);
	assert_ptr_equal(seen, &out);
	weight_rc = NAN;
	assert_true(fk_call_min_weight(&out, NULL, 100) == -1);
	weight_rc = INFINITY;
	assert_true(fk_call_min_weight(&out, NULL, 100) == -1);
	weight_rc = -3;
	assert_true(fk_call_min_weight(&out, NULL, 100) == -1);
	weight_rc = 2.5; /* a 1.2 output has no min_weight */
	out.d.h.struct_size = (uint32_t)offsetof(struct fk_output_plugin, min_weight);
	assert_true(fk_call_min_weight(&out, NULL, 100) == -1);
	assert_true(fk_call_min_weight(&input, NULL, 100) == -1); /* not an output */
}

static void test_statuses(void **state)
{
	struct fk_plugin out = { .prefix = (char *)"[output:o] " };
	static const struct fk_chunk_ops ops = { boundary_far, chunk_parse };
	struct fk_input in;

	(void)state;
	test_descriptor(&input, FK_PLUGIN_INPUT, "t");
	input.d.in.parse = parse;
	assert_int_equal(fk_input_open_mem(&in, "mem", "x\n", 2), 0);
	capture_start();
	parse_says = false;
	parse_rc = 1; /* above 0: no failure */
	seen = NULL;
	assert_int_equal(fk_call_parse(&input, &in, NULL, NULL), 0);
	assert_ptr_equal(seen, &input);
	parse_rc = FK_ERR_DATA; /* a status: the caller says what failed */
	assert_int_equal(fk_call_parse(&input, &in, NULL, NULL), FK_ERR_DATA);
	assert_string_equal(capture_text(), "");
	parse_rc = -22; /* an errno: said once, in the plugin's name */
	{
		FK_CTX_CALL(call);
		assert_int_equal(fk_ctx_fail(call, fk_call_parse(&input, &in, NULL, NULL)),
		                 FK_ERR_PLUGIN);
	}
	assert_string_equal(capture_text(), "[input:t] its parse callback returned -22, not 0 or "
	                    "one of <flamekit/plugin.h>'s FK_ERR_* statuses\n");
	capture_stop();
	capture_start();
	parse_says = true; /* it said why: nothing more */
	{
		FK_CTX_CALL(call);
		assert_int_equal(fk_ctx_fail(call, fk_call_parse(&input, &in, NULL, NULL)),
		                 FK_ERR_PLUGIN);
	}
	assert_string_equal(capture_text(), "[input:t] broken\n");
	capture_stop();
	capture_start();
	parse_says = false; /* an input error was reported on the input */
	assert_int_equal(fk_input_error(&in, 1, "bad"), FK_ERR_DATA);
	assert_int_equal(fk_call_parse(&input, &in, NULL, NULL), FK_ERR_PLUGIN);
	assert_string_equal(capture_text(), "mem:1: bad\n");
	capture_stop();
	fk_input_close(&in);

	test_descriptor(&out, FK_PLUGIN_OUTPUT, "o");
	out.d.out.render = render;
	assert_int_equal(fk_call_render(&out, NULL, NULL, NULL), 0);

	capture_start();
	parse_rc = -100;
	{
		FK_CTX_SCOPE(cx, .plugin = &input); /* chunk ops run inside the parse */
		assert_int_equal(fk_call_chunk_parse(&ops, NULL, 0, NULL, NULL), FK_ERR_PLUGIN);
	}
	assert_string_equal(capture_text(), "[input:t] its chunk parse callback returned -100, not "
	                    "0 or one of <flamekit/plugin.h>'s FK_ERR_* statuses\n");
	capture_stop();
}

static void test_ops(void **state)
{
	static const struct fk_chunk_ops no_boundary = { NULL, chunk_parse };
	static const struct fk_part_ops no_parse = { NULL, NULL };

	(void)state;
	capture_start();
	{
		FK_CTX_SCOPE(cx, .plugin = &input);
		int rc = fk_host.parse_chunks(NULL, NULL, &no_boundary, NULL);

		assert_int_equal(rc, FK_ERR_USAGE);
		rc = fk_host.parse_streams(NULL, 1, NULL, &no_parse, NULL);
		assert_int_equal(rc, FK_ERR_USAGE);
		assert_true(fk_ctx_reported(cx));
	}
	assert_string_equal(capture_text(),
	                    "[input:t] host->parse_chunks: the struct fk_chunk_ops has no boundary "
	                    "callback; set boundary and parse\n"
	                    "[input:t] host->parse_streams: the struct fk_part_ops has no parse "
	                    "callback; set parse (finish is optional)\n");
	capture_stop();
	assert_int_equal(fk_call_part_finish(&no_parse, NULL, NULL), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_guards),
		cmocka_unit_test(test_ranges),
		cmocka_unit_test(test_statuses),
		cmocka_unit_test(test_ops),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
