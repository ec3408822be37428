#!/bin/sh
# What the SDK promises at compile time and before input is read, proven
# from the outside: snippets written against the header alone that must
# NOT compile (a descriptor registered as the wrong kind, an option member
# of the wrong type), a control snippet that must, and a third-party
# output's range check (tests/modules/check/top.c) that `run --check`
# and `graph` honour before reading any input.
. "$FK_SRCDIR/tests/lib.sh"
CC=${CC:-cc}
INC="$FK_SRCDIR/include"

# compiles EXPECT NAME: compile $TMP/head.c followed by the snippet on
# stdin; EXPECT is 0 (must compile) or 1 (must not).  The compiler's
# complaint must name the check.
compiles() {
	{ cat "$TMP/head.c"; cat; } > "$TMP/snippet.c"
	$CC -std=c99 -Wall -Wextra -Werror -Wno-unused-function -fPIC -c -I"$INC" -o "$TMP/snippet.o" "$TMP/snippet.c" \
		> "$TMP/cc.log" 2>&1
	st=$?
	[ $st -ne 0 ] && st=1
	is "$st" "$1" "$2"
	[ "$st" = "$1" ] || sed 's/^/# /' "$TMP/cc.log" | head -10
}

# compiles11 NAME: the snippet on stdin compiles as C11 (for _Static_assert),
# without a warning; the compiler's complaint is shown when it does not.
compiles11() {
	cat > "$TMP/snippet.c"
	$CC -std=c11 -Wall -Wextra -Werror -fPIC -c -I"$INC" -o "$TMP/snippet.o" "$TMP/snippet.c" \
		> "$TMP/cc.log" 2>&1
	st=$?
	ok $st "$1"
	[ $st -eq 0 ] || sed 's/^/# /' "$TMP/cc.log" | head -10
}

# options_compile EXPECT NAME: compiles EXPECT NAME of an output plugin
# with the snippet on stdin (struct opts and the start of its options table)
# as its options.
options_compile() {
	{
		cat
		cat <<'SNIP'
	FK_OPTION_END,
};
static struct fk_output_plugin out = { .h = { .name = "x", .options = options,
	.options_size = sizeof(struct opts) }, .render = render };
FLAMEKIT_REGISTER_OUTPUT(out)
SNIP
	} > "$TMP/options.c"
	compiles "$1" "$2" < "$TMP/options.c"
}

cat > "$TMP/head.c" <<'SNIP'
#include <flamekit/plugin.h>
static int parse(const struct fk_host *h, struct fk_input *in, struct fk_sink *s, const void *o)
{ (void)h; (void)in; (void)s; (void)o; return 0; }
static int render(const struct fk_host *h, const struct fk_profile *p, struct fk_writer *w,
                  const void *o)
{ (void)h; (void)p; (void)w; (void)o; return 0; }
SNIP

# 1. the control: a correct input plugin compiles.
compiles 0 "an input descriptor registered with FLAMEKIT_REGISTER_INPUT compiles" <<'SNIP'
static struct fk_input_plugin in = { .h = { .name = "x" }, .parse = parse };
FLAMEKIT_REGISTER_INPUT(in)
SNIP

# 2. an input descriptor given to FLAMEKIT_REGISTER_OUTPUT does not.
compiles 1 "FLAMEKIT_REGISTER_OUTPUT(an input descriptor) does not compile" <<'SNIP'
static struct fk_input_plugin in = { .h = { .name = "x" }, .parse = parse };
FLAMEKIT_REGISTER_OUTPUT(in)
SNIP
grep -q "fk__kind_check" "$TMP/cc.log"
ok $? "the compiler names the kind check"

# 3. the same for a filter and an output given to the wrong macro.
compiles 1 "FLAMEKIT_REGISTER_FILTER(an output descriptor) does not compile" <<'SNIP'
static struct fk_output_plugin out = { .h = { .name = "x" }, .render = render };
FLAMEKIT_REGISTER_FILTER(out)
SNIP

# 4. an int member for FK_OPT_INT (which the engine writes as 8 bytes).
options_compile 1 "FK_OPTION(FK_OPT_INT, ...) on an int member does not compile" <<'SNIP'
struct opts { int top; };
static const struct fk_option options[] = {
	FK_OPTION(FK_OPT_INT, "top", "10", struct opts, top, "how many"),
SNIP

# 5. the right types compile, every kind of option.
options_compile 0 "every option type on a member of its own type compiles" <<'SNIP'
struct opts { int f; long long i; double d; const char *s, *p; const struct fk_value *v; };
static const struct fk_option options[] = {
	FK_OPTION(FK_OPT_FLAG, "f", "0", struct opts, f, "flag"),
	FK_OPTION(FK_OPT_INT, "i", "1", struct opts, i, "int"),
	FK_OPTION(FK_OPT_DOUBLE, "d", "1.5", struct opts, d, "double"),
	FK_OPTION(FK_OPT_STRING, "s", NULL, struct opts, s, "string"),
	FK_OPTION(FK_OPT_PATH, "p", NULL, struct opts, p, "path"),
	FK_OPTION(FK_OPT_VALUE, "v", NULL, struct opts, v, "value"),
SNIP

# 6. a double member for a STRING option.
options_compile 1 "FK_OPTION(FK_OPT_STRING, ...) on a double member does not compile" <<'SNIP'
struct opts { double s; };
static const struct fk_option options[] = {
	FK_OPTION(FK_OPT_STRING, "s", NULL, struct opts, s, "string"),
SNIP

# 7. ABI 1.3's attributes, as a plugin that must also run on 1.2 uses them:
# FK_SAMPLE_EXT_INIT sets struct_size, FK_HOST_HAS guards push_ext.
compiles11 "ABI 1.3: FK_SAMPLE_EXT_INIT, push_ext behind FK_HOST_HAS and a frozen struct fk_attr compile" <<'SNIP'
#include <flamekit/plugin.h>
_Static_assert(sizeof(struct fk_attr) == 4 * sizeof(void *), "struct fk_attr is frozen");
static int parse(const struct fk_host *h, struct fk_input *in, struct fk_sink *s, const void *o)
{
	struct fk_frameref fr = { "main", 4, FK_ANNOT_NONE, NULL, 0 };
	struct fk_attr a = { "worker", 6, "a", 1 };
	struct fk_sample_ext ext = FK_SAMPLE_EXT_INIT;
	struct fk_sample smp = { &fr, 1, { 1, 0 }, 0, 0, 0, 0, NULL, 0 };
	(void)in;
	(void)o;
	ext.attrs = &a;
	ext.nattrs = 1;
	if (ext.struct_size != sizeof ext)
		return FK_ERR_INTERNAL;
	if (FK_HOST_HAS(h, push_ext))
		return h->push_ext(s, FK_NODE_NONE, &smp, &ext, NULL);
	return h->push(s, &smp, NULL);
}
static struct fk_input_plugin in = { .h = { .name = "x" }, .parse = parse };
FLAMEKIT_REGISTER_INPUT(in)
SNIP

# 8. ABI 1.3's min_weight(), appended to struct fk_output_plugin after
# check(): an output sets it by name, and it is the descriptor's last member.
compiles11 "ABI 1.3: an output's min_weight() compiles, the last member of struct fk_output_plugin" <<'SNIP'
#include <stddef.h>
#include <flamekit/plugin.h>
_Static_assert(offsetof(struct fk_output_plugin, min_weight) >=
               offsetof(struct fk_output_plugin, check) + sizeof(void (*)(void)),
               "min_weight comes after check");
_Static_assert(sizeof(struct fk_output_plugin) ==
               offsetof(struct fk_output_plugin, min_weight) + sizeof(void (*)(void)),
               "min_weight is the last member");
static int render(const struct fk_host *h, const struct fk_profile *p, struct fk_writer *w, const void *o)
{
	(void)h; (void)p; (void)w; (void)o;
	return 0;
}
static double min_weight(const struct fk_host *h, const void *o, double total)
{
	(void)h; (void)o;
	return total / 1000;
}
static struct fk_output_plugin out = { .h = { .name = "x" }, .render = render, .min_weight = min_weight };
FLAMEKIT_REGISTER_OUTPUT(out)
SNIP

# 9. ABI 1.4's input_peek()/input_consume(), as a plugin that must also run
# on 1.3 uses them: behind FK_HOST_HAS, with getline() as the fallback.
compiles11 "ABI 1.4: input_peek() and input_consume() behind FK_HOST_HAS compile" <<'SNIP'
#include <string.h>
#include <flamekit/plugin.h>
static int parse(const struct fk_host *h, struct fk_input *in, struct fk_sink *s, const void *o)
{
	const char *p, *line;
	size_t n, len;
	(void)s;
	(void)o;
	if (FK_HOST_HAS(h, input_peek) && h->input_peek(in, &p, &n) == 0 && n > 0) {
		const char *nl = memchr(p, '\n', n);
		if (nl)
			return h->input_consume(in, (size_t)(nl - p) + 1, 1);
	}
	return h->getline(in, &line, &len) < 0 ? FK_ERR_DATA : 0;
}
static struct fk_input_plugin in = { .h = { .name = "x" }, .parse = parse };
FLAMEKIT_REGISTER_INPUT(in)
SNIP

# 10. ABI 1.6's push_child(), appended after 1.4's input_consume, the last
# member of 1.6 (1.8's start times follow it), used behind FK_HOST_HAS with
# push() as the fallback: a plugin built now still runs on a 1.4 engine.
compiles11 "ABI 1.6: push_child(), the last member of struct fk_host, behind FK_HOST_HAS compiles" <<'SNIP'
#include <string.h>
#include <flamekit/plugin.h>
_Static_assert(offsetof(struct fk_host, push_child) > offsetof(struct fk_host, input_consume),
               "push_child is appended after input_consume");
_Static_assert(offsetof(struct fk_host, sink_set_start_time) == offsetof(struct fk_host, push_child) + sizeof(void (*)(void)),
               "push_child was the last member of 1.6: 1.8's members follow it");
_Static_assert(FK_ABI_MAJOR == 1 && FK_ABI_MINOR >= 6, "push_child is ABI 1.6");
static int parse(const struct fk_host *h, struct fk_input *in, struct fk_sink *s, const void *o)
{
	struct fk_frameref f = { "main", 4, 0, NULL, 0 };
	struct fk_sample smp;
	fk_node_t node = FK_NODE_NONE;
	(void)in;
	(void)o;
	memset(&smp, 0, sizeof smp);
	smp.weight[0] = 1;
	if (FK_HOST_HAS(h, push_child) && h->push_child(s, FK_NODE_ROOT, &f, &node) < 0)
		return FK_ERR_NOMEM;
	if (node != FK_NODE_NONE)
		return h->push_node(s, node, &smp);
	smp.frames = &f;
	smp.nframes = 1;
	return h->push(s, &smp, NULL);
}
static struct fk_input_plugin in = { .h = { .name = "x" }, .parse = parse };
FLAMEKIT_REGISTER_INPUT(in)
SNIP

# 11. ABI 1.8's sink_set_start_time() and start_time(), in that order
# (the last members of struct fk_host until 1.10), behind FK_HOST_HAS: an input that
# knows its capture's wall-clock start, an output that writes it.
compiles11 "ABI 1.8: sink_set_start_time() and start_time(), in that order in struct fk_host, behind FK_HOST_HAS compile" <<'SNIP'
#include <flamekit/plugin.h>
_Static_assert(offsetof(struct fk_host, start_time) == offsetof(struct fk_host, sink_set_start_time) + sizeof(void (*)(void)),
               "start_time follows sink_set_start_time");
_Static_assert(sizeof(struct fk_host) >= offsetof(struct fk_host, start_time) + sizeof(void (*)(void)),
               "start_time is inside struct fk_host");
_Static_assert(FK_ABI_MAJOR == 1 && FK_ABI_MINOR >= 8, "the start times are ABI 1.8");
static int parse(const struct fk_host *h, struct fk_input *in, struct fk_sink *s, const void *o)
{
	(void)in;
	(void)o;
	if (FK_HOST_HAS(h, sink_set_start_time))
		h->sink_set_start_time(s, (int64_t)1764633600 * 1000000000);
	return 0;
}
static int render(const struct fk_host *h, const struct fk_profile *p, struct fk_writer *w, const void *o)
{
	int64_t t = 0;
	(void)o;
	if (FK_HOST_HAS(h, start_time) && h->start_time(p, &t))
		return h->printf(w, "%lld\n", (long long)t) < 0 ? FK_ERR_IO : 0;
	return 0;
}
static struct fk_input_plugin in = { .h = { .name = "x" }, .parse = parse };
static struct fk_output_plugin out = { .h = { .name = "y" }, .render = render };
const struct fk_output_plugin *snippet_output(void);
const struct fk_output_plugin *snippet_output(void) { return &out; }
FLAMEKIT_REGISTER_INPUT(in)
SNIP

# 12. ABI 1.9's demangle, the last member of struct fk_input_plugin: its
# zero is FK_DEMANGLE_NO, what a plugin built before 1.9 reads as.
compiles11 "ABI 1.9: demangle, the last member of struct fk_input_plugin, 0 for FK_DEMANGLE_NO, compiles" <<'SNIP'
#include <flamekit/plugin.h>
_Static_assert(offsetof(struct fk_input_plugin, demangle) ==
               offsetof(struct fk_input_plugin, check) + sizeof(void (*)(void)),
               "demangle follows check");
_Static_assert(sizeof(struct fk_input_plugin) <= offsetof(struct fk_input_plugin, demangle) +
               sizeof(void *), "demangle is the last member");
_Static_assert(FK_DEMANGLE_NO == 0 && FK_DEMANGLE_FULL == 1 && FK_DEMANGLE_SHORT == 2,
               "the demangle values");
_Static_assert(FK_ABI_MAJOR == 1 && FK_ABI_MINOR >= 9, "demangle is ABI 1.9");
static int parse(const struct fk_host *h, struct fk_input *in, struct fk_sink *s, const void *o)
{ (void)h; (void)in; (void)s; (void)o; return 0; }
static struct fk_input_plugin in = { .h = { .name = "x" }, .parse = parse,
                                     .demangle = FK_DEMANGLE_SHORT };
FLAMEKIT_REGISTER_INPUT(in)
SNIP

# 13. ABI 1.10's input_demangle(), the last member of struct fk_host, after
# start_time, behind FK_HOST_HAS: an input that demangles names itself
# learns the user's --no-demangle.
compiles11 "ABI 1.10: input_demangle(), the last member of struct fk_host, behind FK_HOST_HAS compiles" <<'SNIP'
#include <flamekit/plugin.h>
_Static_assert(offsetof(struct fk_host, input_demangle) == offsetof(struct fk_host, start_time) + sizeof(void (*)(void)),
               "input_demangle follows start_time");
_Static_assert(sizeof(struct fk_host) == offsetof(struct fk_host, input_demangle) + sizeof(void (*)(void)),
               "input_demangle is the last member");
_Static_assert(FK_ABI_MAJOR == 1 && FK_ABI_MINOR >= 10, "input_demangle is ABI 1.10");
static int parse(const struct fk_host *h, struct fk_input *in, struct fk_sink *s, const void *o)
{
	int keep = FK_HOST_HAS(h, input_demangle) && h->input_demangle(in) == FK_DEMANGLE_NO;
	(void)s;
	(void)o;
	return keep ? 0 : 0;
}
static struct fk_input_plugin in = { .h = { .name = "x" }, .parse = parse };
FLAMEKIT_REGISTER_INPUT(in)
SNIP

# --- check() before any input is read ------------------------------------
TOPDIR="$FK_BUILDDIR/tests/modules/check"
printf 'a;b 1\n' > "$TMP/a.folded"
cat > "$TMP/job.yaml" <<'SNIP'
inputs: [a.folded]
outputs:
  - plugin: top
    path: out.txt
    options: {top: 0}
SNIP
err=$("$FLAMEKIT" run --plugin-dir "$TOPDIR" --check "$TMP/job.yaml" 2>&1)
is "$?:$err" "2:flamekit: [output:top] $TMP/job.yaml:3:5: --top must be at least 1, not 0" \
	"run --check refuses --top 0 through the plugin's check()"
sed 's/top: 0/top: 3/' "$TMP/job.yaml" > "$TMP/job3.yaml"
"$FLAMEKIT" run --plugin-dir "$TOPDIR" "$TMP/job3.yaml" > /dev/null 2>&1
is "$?:$(cat "$TMP/out.txt" 2>&1)" "0:2 frames, top 3" "with --top 3 the job runs (host->frames gives 2)"
# The input does not exist: a check that ran after reading would say so.
err=$("$FLAMEKIT" graph --plugin-dir "$TOPDIR" --output-plugin top --top 0 "$TMP/missing" 2>&1)
is "$?:$err" "2:flamekit: [output:top] --top must be at least 1, not 0" \
	"graph --top 0 fails before the input is opened"
err=$("$FLAMEKIT" graph --colors=nosuch "$TMP/missing" -o "$TMP/x.svg" 2>&1)
is "$?:$err" "2:flamekit: [output:svg] unknown palette \"nosuch\" (--colors: hot mem io wakeup chain java js perl red green blue aqua yellow purple orange rust python)" \
	"graph --colors=nosuch fails before the input is opened"
cat > "$TMP/pal.yaml" <<'SNIP'
inputs: [a.folded]
outputs: [{plugin: svg, path: out.svg, options: {colors: nosuch}}]
SNIP
err=$("$FLAMEKIT" run --check "$TMP/pal.yaml" 2>&1)
is "$?:$err" "2:flamekit: [output:svg] $TMP/pal.yaml:2:11: unknown palette \"nosuch\" (--colors: hot mem io wakeup chain java js perl red green blue aqua yellow purple orange rust python)" \
	"run --check: the engine puts the job position in front of a check's message"

done_testing
