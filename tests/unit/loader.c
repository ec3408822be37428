/* The plugin loader: good modules from the build tree, and deliberately
 * broken ones refused with one clear sentence each. */
#include <unistd.h>

#include "testlib.h"

static char modules[1024];

static int setup(void **state)
{
	const char *b = getenv("FK_BUILDDIR");
	(void)state;
	if (!b || !getenv("FLAMEKIT_PLUGIN_PATH")) {
		fprintf(stderr, "run through make check (FK_BUILDDIR and FLAMEKIT_PLUGIN_PATH)\n");
		return -1;
	}
	snprintf(modules, sizeof modules, "%s/tests/modules", b);
	return 0;
}

static void test_builtin_plugins(void **state)
{
	struct fk_registry r;
	const struct fk_plugin *in, *out;

	(void)state;
	assert_int_equal(fk_registry_init(&r), 0);
	capture_start();
	assert_int_equal(fk_registry_load_all(&r), 0);
	assert_string_equal(capture_text(), "");
	capture_stop();
	in = fk_registry_find(&r, FK_PLUGIN_INPUT, "folded");
	out = fk_registry_find(&r, FK_PLUGIN_OUTPUT, "folded");
	assert_non_null(in);
	assert_non_null(out);
	assert_non_null(in->d.in.parse);
	assert_non_null(in->d.in.probe);
	assert_non_null(out->d.out.render);
	assert_int_equal(in->d.h.abi_major, FK_ABI_MAJOR);
	/* loaded as a module from the build tree, not linked in */
	assert_non_null(strstr(in->path, "/plugins/.libs/input-folded.so"));
	assert_string_equal(in->prefix, "[input:folded] ");
	assert_int_equal(r.refused, 0);
	fk_registry_free(&r);
}

static int nop_sample(void *state, struct fk_sample_edit *e)
{
	(void)state;
	(void)e;
	return 0;
}

/* What FLAMEKIT_REGISTER_FILTER fills in. */
static void stamp_filter(struct fk_filter_plugin *f)
{
	f->h.magic = FK_PLUGIN_MAGIC;
	f->h.abi_major = FK_ABI_MAJOR;
	f->h.abi_minor = FK_ABI_MINOR;
	f->h.struct_size = (uint32_t)sizeof *f;
	f->h.kind = FK_PLUGIN_FILTER;
}

/* fk_registry_add_builtin: a descriptor compiled into the program (the
 * fuzzing harnesses' way) gets the same checks as a module's. */
static void test_add_builtin(void **state)
{
	static struct fk_filter_plugin f = { .h = { .name = "nop" }, .sample = nop_sample };
	struct fk_registry r;
	const struct fk_plugin *pl;

	(void)state;
	stamp_filter(&f);
	assert_int_equal(fk_registry_init(&r), 0);
	assert_int_equal(fk_registry_add_builtin(&r, &f.h, "(built in) nop"), 0);
	pl = fk_registry_find(&r, FK_PLUGIN_FILTER, "nop");
	assert_non_null(pl);
	assert_ptr_equal(pl->d.filter.sample, nop_sample);
	assert_null(pl->handle);
	assert_string_equal(pl->path, "(built in) nop");
	assert_string_equal(pl->prefix, "[filter:nop] ");

	capture_start();
	assert_int_equal(fk_registry_add_builtin(&r, &f.h, "again"), FK_ERR_PLUGIN);
	assert_string_equal(capture_text(), "again: plugin refused: a filter plugin "
	                    "named \"nop\" is already loaded from (built in) nop; remove one of the two "
	                    "modules or rename this one\n");
	capture_stop();
	f.h.magic = 1;
	f.h.name = "other";
	capture_start();
	assert_int_equal(fk_registry_add_builtin(&r, &f.h, "bad"), FK_ERR_PLUGIN);
	assert_non_null(strstr(capture_text(), "bad: plugin refused: wrong magic 0x00000001"));
	capture_stop();
	assert_int_equal(r.refused, 2);
	assert_int_equal(r.n, 1);
	fk_registry_free(&r);
}

static int nop_render(const struct fk_host *h, const struct fk_profile *p, struct fk_writer *w,
                      const void *opts)
{
	(void)h;
	(void)p;
	(void)w;
	(void)opts;
	return 0;
}

static double some_weight(const struct fk_host *h, const void *opts, double total)
{
	(void)h;
	(void)opts;
	return total / 2;
}

/* An output built before ABI 1.3 ends its descriptor at check(): the
 * loader copies only its struct_size bytes, so min_weight() reads as NULL
 * (here the bytes past it hold a pointer the loader must not take), and
 * `flamekit graph` gives it the whole tree. */
static void test_output_before_min_weight(void **state)
{
	static struct fk_output_plugin o = { .h = { .name = "old" }, .render = nop_render,
	                                     .min_weight = some_weight };
	struct fk_registry r;
	const struct fk_plugin *pl;

	(void)state;
	o.h.magic = FK_PLUGIN_MAGIC;
	o.h.abi_major = FK_ABI_MAJOR;
	o.h.abi_minor = 2;
	o.h.struct_size = (uint32_t)offsetof(struct fk_output_plugin, min_weight);
	o.h.kind = FK_PLUGIN_OUTPUT;
	assert_int_equal(fk_registry_init(&r), 0);
	assert_int_equal(fk_registry_add_builtin(&r, &o.h, "(built in) old"), 0);
	pl = fk_registry_find(&r, FK_PLUGIN_OUTPUT, "old");
	assert_non_null(pl);
	assert_ptr_equal(pl->d.out.render, nop_render);
	assert_null(pl->d.out.min_weight);
	fk_registry_free(&r);

	o.h.name = "new";
	o.h.abi_minor = FK_ABI_MINOR;
	o.h.struct_size = (uint32_t)sizeof o;
	assert_int_equal(fk_registry_init(&r), 0);
	assert_int_equal(fk_registry_add_builtin(&r, &o.h, "(built in) new"), 0);
	pl = fk_registry_find(&r, FK_PLUGIN_OUTPUT, "new");
	assert_non_null(pl);
	assert_ptr_equal(pl->d.out.min_weight, some_weight);
	fk_registry_free(&r);
}

static void expect_refused(const char *module, const char *message)
{
	struct fk_registry r;
	char path[1200];
	const char *text;

	assert_int_equal(fk_registry_init(&r), 0);
	assert_int_equal(fk_registry_load_all(&r), 0);
	snprintf(path, sizeof path, "%s/%s", modules, module);
	capture_start();
	assert_int_equal(fk_registry_load(&r, path), FK_ERR_PLUGIN);
	text = capture_text();
	/* one warning line naming the file actually opened */
	{
		/* "bad/optsize" is built as bad/.libs/optsize.so */
		const char *slash = strrchr(module, '/');
		snprintf(path, sizeof path, "%s/%.*s.libs/%s.so: plugin refused: ", modules,
		         slash ? (int)(slash - module + 1) : 0, module, slash ? slash + 1 : module);
	}
	assert_non_null(strstr(text, path));
	if (!strstr(text, message))
		fail_msg("expected \"%s\" in \"%s\"", message, text);
	assert_int_equal(strchr(text, '\n') - text, (long)strlen(text) - 1);
	capture_stop();
	assert_int_equal(r.refused, 1);
	/* the others keep working */
	assert_non_null(fk_registry_find(&r, FK_PLUGIN_INPUT, "folded"));
	fk_registry_free(&r);
}

static void test_bad_magic(void **state)
{
	(void)state;
	expect_refused("badmagic", "plugin refused: wrong magic 0xdeadbeef (expected 0x4c504b46); it "
	               "was not built with <flamekit/plugin.h>'s FLAMEKIT_REGISTER_* macro");
}

static void test_wrong_abi(void **state)
{
	char msg[512];

	(void)state;
	snprintf(msg, sizeof msg, "plugin refused: built for plugin ABI 99.3, but this flamekit "
	         "speaks ABI %d.%d; rebuild the plugin against this flamekit's "
	         "<flamekit/plugin.h> (pkg-config --cflags flamekit-plugin)", FK_ABI_MAJOR, FK_ABI_MINOR);
	expect_refused("wrongabi", msg);
}

static void test_no_entry(void **state)
{
	(void)state;
	expect_refused("noentry", "plugin refused: no flamekit_plugin_init symbol");
}

static void test_duplicate_name(void **state)
{
	(void)state;
	expect_refused("dupname", "plugin refused: an input plugin named \"folded\" is already loaded from ");
}

/* Section 6 of issue 13: descriptors that used to load and then break the
 * engine, each refused at load with one sentence naming what is wrong. */
static void test_option_beyond_options_size(void **state)
{
	(void)state;
	expect_refused("bad/optsize", "the output plugin \"optsize\": option 'depth' lies at bytes "
	               "0..8, beyond the 0-byte options struct (options_size); set options_size to "
	               "sizeof the struct that holds it");
}

static void test_option_bad_name(void **state)
{
	(void)state;
	expect_refused("bad/optname", "the output plugin \"optname\": option name \"Max_Depth\" is "
	               "not lower-case letters, digits and '-' starting with a letter; rename it");
}

static void test_option_duplicate(void **state)
{
	(void)state;
	expect_refused("bad/optdup", "the output plugin \"optdup\": option 'depth' is declared "
	               "twice; remove one of the two entries");
}

static void test_option_bad_default(void **state)
{
	(void)state;
	expect_refused("bad/optdefault", "the output plugin \"optdefault\": option 'depth' has a "
	               "bad default: option 'depth' takes a whole number, not \"lots\"; fix the "
	               "default text");
}

static void test_option_unknown_type(void **state)
{
	(void)state;
	expect_refused("bad/opttype", "the output plugin \"opttype\": option 'depth' has an unknown "
	               "type 99; use one of the FK_OPT_* types of <flamekit/plugin.h>");
}

static void test_wrong_kind(void **state)
{
	(void)state;
	expect_refused("bad/wrongkind", "the output plugin \"wrongkind\" sets unknown needs flags");
}

/* ABI 1.9: a demangle default that is no FK_DEMANGLE_* value. */
static void test_bad_demangle_default(void **state)
{
	(void)state;
	expect_refused("bad/demangle", "the input plugin \"baddemangle\" sets an unknown demangle "
	               "default 7; use FK_DEMANGLE_NO, FK_DEMANGLE_FULL or FK_DEMANGLE_SHORT");
}

/* All seven broken descriptors in one --plugin-dir: each refused, every
 * in-tree plugin still loaded. */
static void test_directory_of_broken_descriptors(void **state)
{
	struct fk_registry r;
	char dir[1200];

	(void)state;
	snprintf(dir, sizeof dir, "%s/bad", modules);
	assert_int_equal(fk_registry_init(&r), 0);
	assert_int_equal(fk_registry_add_dir(&r, dir), 0);
	capture_start();
	assert_int_equal(fk_registry_load_all(&r), 0);
	capture_stop();
	assert_int_equal(r.refused, 7);
	assert_non_null(fk_registry_find(&r, FK_PLUGIN_INPUT, "folded"));
	assert_non_null(fk_registry_find(&r, FK_PLUGIN_OUTPUT, "svg"));
	assert_non_null(fk_registry_find(&r, FK_PLUGIN_FILTER, "lua"));
	assert_null(fk_registry_find(&r, FK_PLUGIN_OUTPUT, "optsize"));
	fk_registry_free(&r);
}

/* A third party's check callback runs on the final options: --top 0 is
 * refused with its own message, the default is fine. */
static void test_check_callback(void **state)
{
	struct fk_registry r;
	const struct fk_plugin *pl;
	char path[1200], err[256];
	void *opts = NULL;

	(void)state;
	assert_int_equal(fk_registry_init(&r), 0);
	snprintf(path, sizeof path, "%s/check/top", modules);
	assert_int_equal(fk_registry_load(&r, path), 0);
	pl = fk_registry_find(&r, FK_PLUGIN_OUTPUT, "top");
	assert_non_null(pl);
	assert_int_equal(fk_options_new(pl, &opts), 0);
	assert_int_equal(fk_options_check(pl, opts, "job.yaml:3:5"), 0);
	assert_int_equal(fk_option_set(pl, opts, "top", "0", err, sizeof err), 0);
	capture_start();
	assert_int_equal(fk_options_check(pl, opts, "job.yaml:3:5"), FK_ERR_USAGE);
	assert_string_equal(capture_text(), "[output:top] job.yaml:3:5: --top must be at least 1, "
	                    "not 0\n");
	capture_stop();
	fk_options_free(pl, opts);
	fk_registry_free(&r);
}

/* An ABI 1.0 engine's host table ends before parse_chunks: the folded
 * input checks FK_HOST_HAS and parses on its own thread instead of
 * calling a member the engine does not have. */
static void test_folded_on_a_1_0_host(void **state)
{
	static const char text[] = "a;b 2\na;c 3\n";
	struct fk_registry r;
	const struct fk_plugin *pl;
	struct fk_host old = fk_host;
	struct fk_profile *p;
	struct fk_input in;
	struct fk_sink sink;
	void *opts;

	(void)state;
	old.struct_size = (uint32_t)offsetof(struct fk_host, parse_chunks);
	old.abi_minor = 0;
	old.parse_chunks = NULL; /* what an old engine's table holds there is not ours to call */
	assert_int_equal(fk_registry_init(&r), 0);
	assert_int_equal(fk_registry_load_all(&r), 0);
	pl = fk_registry_find(&r, FK_PLUGIN_INPUT, "folded");
	assert_non_null(pl);
	assert_int_equal(fk_options_new(pl, &opts), 0);
	assert_non_null(p = fk_profile_new());
	assert_int_equal(fk_input_open_mem(&in, "mem", text, sizeof text - 1), 0);
	assert_int_equal(fk_sink_init(&sink, p, 0, 2, NULL), 0);
	assert_int_equal(pl->d.in.parse(&old, &in, &sink, opts), 0);
	fk_sink_fini(&sink);
	assert_int_equal(fk_profile_finish(p), 0);
	assert_int_equal(p->tree.nnodes, 4); /* root, a, b, c */
	assert_true(p->tree.total[0] == 5);
	fk_input_close(&in);
	fk_profile_free(p);
	fk_options_free(pl, opts);
	fk_registry_free(&r);
}

/* An engine older than 1.6 has a host table that ends before push_child:
 * v8 and html check FK_HOST_HAS and push each stack's frames instead, with
 * the same tree (and on a 1.6 host, push_child gives the nodes push()
 * would). */
static struct fk_profile *v8_on(const struct fk_host *h, const char *text)
{
	struct fk_registry r;
	const struct fk_plugin *pl;
	struct fk_profile *p;
	struct fk_input in;
	struct fk_sink sink;
	void *opts;

	assert_int_equal(fk_registry_init(&r), 0);
	assert_int_equal(fk_registry_load_all(&r), 0);
	pl = fk_registry_find(&r, FK_PLUGIN_INPUT, "v8");
	if (!pl) { /* built without yajl */
		fk_registry_free(&r);
		return NULL;
	}
	assert_int_equal(fk_options_new(pl, &opts), 0);
	assert_non_null(p = fk_profile_new());
	assert_int_equal(fk_input_open_mem(&in, "mem", text, strlen(text)), 0);
	assert_int_equal(fk_sink_init(&sink, p, 0, 1, NULL), 0);
	assert_int_equal(pl->d.in.parse(h, &in, &sink, opts), 0);
	fk_sink_fini(&sink);
	assert_int_equal(fk_profile_finish(p), 0);
	fk_input_close(&in);
	fk_options_free(pl, opts);
	fk_registry_free(&r);
	return p;
}

static void test_v8_on_a_1_5_host(void **state)
{
	static const char text[] =
		"{\"nodes\":[{\"id\":1,\"callFrame\":{\"functionName\":\"(root)\",\"url\":\"\"},\"children\":[2,4]},"
		"{\"id\":2,\"callFrame\":{\"functionName\":\"a\",\"url\":\"\"},\"children\":[3]},"
		"{\"id\":3,\"callFrame\":{\"functionName\":\"b\",\"url\":\"\"}},"
		"{\"id\":4,\"callFrame\":{\"functionName\":\"a;c\",\"url\":\"\"}}],"
		"\"samples\":[3,3,2,4]}";
	struct fk_host old = fk_host;
	struct fk_profile *p, *q;
	fk_node_t n;

	(void)state;
	old.struct_size = (uint32_t)offsetof(struct fk_host, push_child);
	old.abi_minor = 5;
	old.push_child = NULL;
	if (!(p = v8_on(&old, text)))
		skip();
	assert_non_null(q = v8_on(&fk_host, text));
	assert_int_equal(p->tree.nnodes, 4); /* root, a, b under a, "a:c" */
	assert_int_equal(q->tree.nnodes, 4);
	for (n = 0; n < 4; n++) {
		assert_int_equal(p->tree.nodes[n].parent, q->tree.nodes[n].parent);
		assert_int_equal(p->tree.nodes[n].frame, q->tree.nodes[n].frame);
		assert_true(p->tree.total[n * FK_SERIES_MAX] == q->tree.total[n * FK_SERIES_MAX]);
	}
	assert_true(q->tree.total[0] == 4);
	fk_profile_free(p);
	fk_profile_free(q);
}

static void test_garbage_file(void **state)
{
	struct fk_registry r;
	char path[1200];

	(void)state;
	assert_int_equal(fk_registry_init(&r), 0);
	snprintf(path, sizeof path, "%s/../../../tests/modules/garbage.so", modules);
	if (getenv("FK_SRCDIR"))
		snprintf(path, sizeof path, "%s/tests/modules/garbage.so", getenv("FK_SRCDIR"));
	capture_start();
	assert_int_equal(fk_registry_load(&r, path), FK_ERR_PLUGIN);
	assert_non_null(strstr(capture_text(), "garbage.so: plugin refused: cannot load it ("));
	capture_stop();
	fk_registry_free(&r);
}

static void test_directory_with_broken_modules(void **state)
{
	struct fk_registry r;
	const struct fk_plugin *old, *folded;

	(void)state;
	assert_int_equal(fk_registry_init(&r), 0);
	assert_int_equal(fk_registry_add_dir(&r, modules), 0);
	capture_start();
	assert_int_equal(fk_registry_load_all(&r), 0);
	/* badmagic, noentry, wrongabi refused; dupname took "folded" first (the
	 * --plugin-dir comes first), so the build tree's folded input is the
	 * duplicate refused.  In an in-tree build the source's garbage.so sits
	 * in the same directory and is refused too. */
	{
		char g[1200];
		snprintf(g, sizeof g, "%s/garbage.so", modules);
		assert_int_equal(r.refused, access(g, F_OK) == 0 ? 5 : 4);
		if (access(g, F_OK) == 0)
			assert_non_null(strstr(capture_text(), "garbage: plugin refused: cannot load it ("));
	}
	capture_stop();
	old = fk_registry_find(&r, FK_PLUGIN_INPUT, "oldminor");
	assert_non_null(old);
	assert_int_equal(old->d.h.abi_minor, 0);
	folded = fk_registry_find(&r, FK_PLUGIN_INPUT, "folded");
	assert_non_null(folded);
	assert_string_equal(folded->d.h.description, "impostor");
	fk_registry_free(&r);
}

static void test_options(void **state)
{
	struct fk_registry r;
	const struct fk_plugin *pl;
	void *opts = NULL;
	char err[256];

	(void)state;
	assert_int_equal(fk_registry_init(&r), 0);
	assert_int_equal(fk_registry_load_all(&r), 0);
	pl = fk_registry_find(&r, FK_PLUGIN_INPUT, "folded");
	assert_int_equal(fk_options_new(pl, &opts), 0);
	assert_int_equal(fk_option_set(pl, opts, "nope", "1", err, sizeof err), FK_ERR_USAGE);
	assert_string_equal(err, "the input plugin \"folded\" has no option 'nope' (it has: (none))");
	fk_options_free(pl, opts);
	fk_registry_free(&r);
}

/* ABI 1.7's FK_OPT_CMDLINE_ONLY: the engine's copy of the table has plain
 * types, the flag is kept beside it, and an unknown flag is refused. */
struct cmd_opts {
	const char *prog;
	int verbose;
};

static void test_option_cmdline_only(void **state)
{
	static struct fk_option table[] = {
		FK_OPTION(FK_OPT_FLAG, "verbose", "0", struct cmd_opts, verbose, "talk"),
		FK_OPTION(FK_OPT_STRING | FK_OPT_CMDLINE_ONLY, "prog", NULL, struct cmd_opts, prog,
		          "the program to run"),
		FK_OPTION_END,
	};
	static struct fk_filter_plugin f = { .h = { .name = "cmd", .options = table,
	                                            .options_size = sizeof(struct cmd_opts) },
	                                     .sample = nop_sample };
	struct fk_registry r;
	const struct fk_plugin *pl;
	const struct fk_option *o;
	void *opts;
	char err[256];

	(void)state;
	stamp_filter(&f);
	assert_int_equal(fk_registry_init(&r), 0);
	assert_int_equal(fk_registry_add_builtin(&r, &f.h, "(built in) cmd"), 0);
	pl = fk_registry_find(&r, FK_PLUGIN_FILTER, "cmd");
	assert_non_null(pl);
	o = fk_option_find(pl, "prog");
	assert_non_null(o);
	assert_int_equal(o->type, FK_OPT_STRING);
	assert_true(fk_option_cmdline_only(pl, o));
	assert_false(fk_option_cmdline_only(pl, fk_option_find(pl, "verbose")));
	/* the command line sets it as any string */
	assert_int_equal(fk_options_new(pl, &opts), 0);
	assert_int_equal(fk_option_set(pl, opts, "prog", "/usr/bin/perf", err, sizeof err), 0);
	assert_string_equal(((struct cmd_opts *)opts)->prog, "/usr/bin/perf");
	fk_options_free(pl, opts);
	fk_registry_free(&r);

	table[1].type = FK_OPT_STRING | 0x400000;
	f.h.name = "badflag";
	assert_int_equal(fk_registry_init(&r), 0);
	capture_start();
	assert_int_equal(fk_registry_add_builtin(&r, &f.h, "badflag.so"), FK_ERR_PLUGIN);
	assert_string_equal(capture_text(), "badflag.so: plugin refused: the filter plugin "
	                    "\"badflag\": option 'prog' has unknown flags 0x400000 in its type; use the "
	                    "FK_OPT_* flags of <flamekit/plugin.h>\n");
	capture_stop();
	fk_registry_free(&r);
	table[1].type = FK_OPT_STRING | FK_OPT_CMDLINE_ONLY;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_builtin_plugins),
		cmocka_unit_test(test_add_builtin),
		cmocka_unit_test(test_output_before_min_weight),
		cmocka_unit_test(test_bad_magic),
		cmocka_unit_test(test_wrong_abi),
		cmocka_unit_test(test_no_entry),
		cmocka_unit_test(test_duplicate_name),
		cmocka_unit_test(test_option_beyond_options_size),
		cmocka_unit_test(test_option_bad_name),
		cmocka_unit_test(test_option_duplicate),
		cmocka_unit_test(test_option_bad_default),
		cmocka_unit_test(test_option_unknown_type),
		cmocka_unit_test(test_wrong_kind),
		cmocka_unit_test(test_bad_demangle_default),
		cmocka_unit_test(test_directory_of_broken_descriptors),
		cmocka_unit_test(test_check_callback),
		cmocka_unit_test(test_folded_on_a_1_0_host),
		cmocka_unit_test(test_v8_on_a_1_5_host),
		cmocka_unit_test(test_garbage_file),
		cmocka_unit_test(test_directory_with_broken_modules),
		cmocka_unit_test(test_options),
		cmocka_unit_test(test_option_cmdline_only),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
