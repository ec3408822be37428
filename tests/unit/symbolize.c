/* libfksym against independent oracles, on programs compiled at test time:
 * `perf script -F ip,sym,symoff,dso` of a real `perf record -g` (skipped
 * when perf cannot record), objdump's PLT labels, nm, and binutils'
 * addr2line for inline frames and source lines.  $HOME, the build-id cache
 * and --symfs all point into a temporary directory. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "flamekit/plugin.h"
#include "internal.h"                 /* the symbol table's rbtree (rbtree_*) */
#include "symbolize.h"

static char tmp[256];
static int have_perf, have_sys;
static char logbuf[8192];

static void test_log(int level, const char *fmt, ...)
{
	size_t n = strlen(logbuf);
	va_list ap;

	(void)level;
	va_start(ap, fmt);
	vsnprintf(logbuf + n, sizeof(logbuf) - n, fmt, ap);
	va_end(ap);
	n = strlen(logbuf);
	if (n + 1 < sizeof(logbuf))
		strcat(logbuf, "\n");
}

static struct fk_host host = { .struct_size = sizeof(struct fk_host), .log = test_log };

static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int sh(const char *fmt, ...)
{
	char *cmd;
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vasprintf(&cmd, fmt, ap);
	va_end(ap);
	assert_true(r >= 0);
	r = system(cmd);
	free(cmd);
	return r;
}

static char *slurp(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *slurp(const char *fmt, ...)
{
	char *cmd, *buf = NULL;
	size_t len = 0;
	FILE *f, *m;
	va_list ap;
	int c;

	va_start(ap, fmt);
	assert_true(vasprintf(&cmd, fmt, ap) >= 0);
	va_end(ap);
	f = popen(cmd, "r");
	assert_non_null(f);
	m = open_memstream(&buf, &len);
	while ((c = getc(f)) != EOF)
		putc(c, m);
	fclose(m);
	pclose(f);
	free(cmd);
	return buf;
}

static void write_file(const char *name, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmp, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static const char lib_c[] =
	"volatile long lib_sink;\n"
	"static __attribute__((noinline)) long lib_inner(long n) { long s = 0; for (long i = 0; i < n; i++) s += i ^ 5; return s; }\n"
	"__attribute__((noinline)) long lib_work(long n) { return lib_inner(n) + 1; }\n";

static const char prog_c[] =
	"#include <stdio.h>\n"
	"#include <stdlib.h>\n"
	"long lib_work(long n);\n"
	"volatile long sink;\n"
	"static __attribute__((noinline)) long leaf_static(long n) { long s = 0; for (long i = 0; i < n; i++) s += i * 3; return s; }\n"
	"static inline __attribute__((always_inline)) long inl(long n) { long s = 1; for (long i = 0; i < n; i++) s ^= i * 7; return s; }\n"
	"__attribute__((noinline)) long mid_global(long n) { return leaf_static(n) + inl(n); }\n"
	"__attribute__((weak, noinline)) long weak_fn(long n) { return mid_global(n) + lib_work(n); }\n"
	"int main(int argc, char **argv) { long n = argc > 1 ? strtol(argv[1], 0, 10) : 2000000;\n"
	"  for (int k = 0; k < 30; k++) { sink += weak_fn(n); printf(\"%ld\", sink & 1); } puts(\"\"); return 0; }\n";

static const char cpp_cc[] =
	"namespace ns { template <class T> struct W {\n"
	"  static T __attribute__((noinline)) spin(T n) { volatile T x = 0; for (T i = 0; i < n; i++) x += i; return x; } }; }\n"
	"struct Box { long v; long __attribute__((noinline)) get(long n) const { return ns::W<long>::spin(n) + v; } };\n"
	"int main() { long t = 0; Box b{1}; auto f = [&](long z) __attribute__((noinline)) { return b.get(z); };\n"
	"  for (int k = 0; k < 30; k++) t += f(2000000); return (int)(t & 0); }\n";

static const char vdso_c[] =
	"#include <time.h>\n"
	"int main(void) { struct timespec ts; long s = 0; for (long i = 0; i < 3000000; i++) {\n"
	"  clock_gettime(CLOCK_MONOTONIC, &ts); s += ts.tv_nsec; } return (int)(s & 0); }\n";

static const char go_src[] =
	"package main\n\nimport \"os\"\n\n"
	"//go:noinline\nfunc spin(n int) int { s := 0; for i := 0; i < n; i++ { s += i * 3 % 7 }; return s }\n\n"
	"//go:noinline\nfunc work(n int) int { return spin(n) + 1 }\n\n"
	"func main() { t := 0; for k := 0; k < 30; k++ { t += work(3000000) }; os.Exit(t & 0) }\n";

static const char rust_src[] =
	"#[inline(never)]\nfn spin(n: u64) -> u64 { let mut s = 0u64; for i in 0..n { s = s.wrapping_add(std::hint::black_box(i) * 3); } s }\n"
	"mod inner { #[inline(never)] pub fn work<T: Into<u64>>(n: T) -> u64 { super::spin(n.into()) + 1 } }\n"
	"fn main() { let mut t = 0u64; for _ in 0..20 { t = t.wrapping_add(inner::work(3_000_000u32)); } std::process::exit((t & 0) as i32); }\n";

static const char js_src[] =
	"function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }\n"
	"let t = 0; for (let i = 0; i < 30; i++) t += fib(25);\n";

static int have_go, have_rust, have_node;

#define CFLAGS "-O1 -g -fno-omit-frame-pointer -Wl,--build-id"

static int setup(void **state)
{
	const char *t = getenv("TMPDIR");
	char *r;

	(void)state;
	snprintf(tmp, sizeof(tmp), "%s/fksym.XXXXXX", t && *t ? t : "/tmp");
	assert_non_null(mkdtemp(tmp));
	write_file("lib.c", lib_c);
	write_file("prog.c", prog_c);
	write_file("cpp.cc", cpp_cc);
	write_file("vdso.c", vdso_c);
	write_file("g.go", go_src);
	write_file("r.rs", rust_src);
	write_file("j.js", js_src);
	assert_int_equal(sh("cd %s && cc " CFLAGS " -fPIC -shared -o libfkt.so lib.c && "
			    "cc " CFLAGS " -pie -fPIE -o prog prog.c -L. -lfkt -Wl,-rpath,%s && "
			    "cc " CFLAGS " -no-pie -o prog-nopie prog.c -L. -lfkt -Wl,-rpath,%s", tmp, tmp, tmp), 0);
	/* A stripped copy under --symfs with its debuginfo at .build-id/xx/rest.debug. */
	r = slurp("readelf -n %s/prog | sed -n 's/.*Build ID: //p'", tmp);
	assert_true(strlen(r) > 3);
	r[strcspn(r, "\n")] = '\0';
	assert_int_equal(sh("cd %s && mkdir -p symfs%s symfs/usr/lib/debug/.build-id/%.2s home/.debug && "
			    "objcopy --only-keep-debug prog symfs/usr/lib/debug/.build-id/%.2s/%s.debug && "
			    "strip -o symfs%s/prog prog", tmp, tmp, r, r, r + 2, tmp), 0);
	free(r);
	/* MiniDebugInfo, as gdb's manual makes it: the functions .dynsym lacks,
	 * in an xz'd ELF in .gnu_debugdata of the stripped file. */
	assert_int_equal(sh("cd %s && nm -D prog --format=posix --defined-only | awk '{ print $1 }' | sort > dynsyms && "
			    "nm prog --format=posix --defined-only | awk '$2 == \"T\" || $2 == \"t\" { print $1 }' | sort > funcsyms && "
			    "comm -13 dynsyms funcsyms > keep && objcopy --only-keep-debug prog mini.debug && "
			    "objcopy -S --remove-section .gdb_index --remove-section .comment --keep-symbols=keep mini.debug mini && "
			    "xz -f mini && strip --strip-all -R .comment -o prog-mini prog && "
			    "objcopy --add-section .gnu_debugdata=mini.xz prog-mini", tmp), 0);
	assert_int_equal(sh("cd %s && c++ " CFLAGS " -o cpp cpp.cc && cc " CFLAGS " -o vdso vdso.c", tmp), 0);
	/* A real capture, perf's build-id cache kept out of the real $HOME. */
	have_perf = sh("cd %s && HOME=%s/home perf record -q --no-buildid-cache -g -o prog.data ./prog >/dev/null 2>&1 && "
		       "HOME=%s/home perf record -q --no-buildid-cache -g -o nopie.data ./prog-nopie >/dev/null 2>&1 && "
		       "HOME=%s/home perf script -i prog.data -F ip,sym,symoff,dso > prog.txt 2>/dev/null && "
		       "HOME=%s/home perf script -i nopie.data -F ip,sym,symoff,dso > nopie.txt 2>/dev/null && "
		       "HOME=%s/home perf record -q --no-buildid-cache -g -o cpp.data ./cpp >/dev/null 2>&1 && "
		       "HOME=%s/home perf script -i cpp.data -F ip,sym,symoff,dso > cpp.txt 2>/dev/null && "
		       "mkdir -p home2 && HOME=%s/home2 perf record -q -g -o vdso.data ./vdso >/dev/null 2>&1 && "
		       "HOME=%s/home2 perf script -i vdso.data -F ip,sym,symoff,dso > vdso.txt 2>/dev/null",
		       tmp, tmp, tmp, tmp, tmp, tmp, tmp, tmp, tmp) == 0;
	/* system-wide, every DSO on the machine (perf caches the vDSO in home3) */
	have_sys = have_perf && sh("cd %s && mkdir -p home3 && HOME=%s/home3 perf record -q -a -g -o sys.data -- sleep 0.3 "
				   ">/dev/null 2>&1 && HOME=%s/home3 perf script -i sys.data -F ip,sym,symoff,dso 2>/dev/null | "
				   "grep -E '\\((\\[kernel\\.kallsyms\\]|/usr/[^()]*)\\)$' > sys.txt", tmp, tmp, tmp) == 0;
	/* Go (frame pointers by default) and Rust (legacy mangling), when the
	 * compilers are here */
	have_go = have_perf && sh("cd %s && GOCACHE=%s/gocache HOME=%s/home GO111MODULE=off GOFLAGS= "
				  "go build -o gprog g.go >/dev/null 2>&1 && "
				  "HOME=%s/home perf record -q --no-buildid-cache -g -o g.data ./gprog >/dev/null 2>&1 && "
				  "HOME=%s/home perf script -i g.data -F ip,sym,symoff,dso > g.txt 2>/dev/null",
				  tmp, tmp, tmp, tmp, tmp) == 0;
	have_rust = have_perf && sh("cd %s && rustc -O -g -C force-frame-pointers=yes -o rprog r.rs >/dev/null 2>&1 && "
				    "HOME=%s/home perf record -q --no-buildid-cache -g -o r.data ./rprog >/dev/null 2>&1 && "
				    "HOME=%s/home perf script -i r.data -F ip,sym,symoff,dso > r.txt 2>/dev/null",
				    tmp, tmp, tmp) == 0;
	/* node's JIT map, /tmp/perf-PID.map (removed by teardown) */
	have_node = have_perf && sh("cd %s && HOME=%s/home perf record -q --no-buildid-cache -g -o j.data "
				    "node --perf-basic-prof j.js >/dev/null 2>&1 && "
				    "HOME=%s/home perf script -i j.data -F ip,sym,symoff,dso > j.txt 2>/dev/null && "
				    "sed -n 's|.*(/tmp/perf-\\([0-9]*\\)\\.map)$|\\1|p' j.txt | sort -u > jit.pids && "
				    "test -s jit.pids", tmp, tmp, tmp) == 0;
	if (!have_perf)
		print_message("perf cannot record here (perf_event_paranoid, no PMU?): "
			      "the tests against perf script are skipped\n");
	return 0;
}

static int teardown(void **state)
{
	char own[64];

	(void)state;
	snprintf(own, sizeof(own), "/tmp/perf-%d.map", (int)getpid());
	unlink(own);                               /* the jitmap test's, if it stopped midway */
	sh("test -f %s/jit.pids && sed 's|.*|/tmp/perf-&.map|' %s/jit.pids | xargs rm -f", tmp, tmp);
	if (tmp[0] && !getenv("FKSYM_KEEP"))
		sh("rm -rf '%s'", tmp);
	return 0;
}

static const char *cache_home = "home";      /* the build-id cache: TMP/home/.debug */

static struct fk_symbolizer *new_sym(const char *symfs, int inl, int srcline)
{
	char bid[512];
	struct fk_sym_config cfg = { .symfs = symfs, .demangle = 1, .inline_frames = inl, .srcline = srcline };

	snprintf(bid, sizeof(bid), "%s/%s/.debug", tmp, cache_home);
	cfg.buildid_dir = bid;
	return fk_symbolizer_new(&cfg, &host);
}

static void format(const struct fk_sym_result *r, char *out, size_t size)
{
	const struct fk_sym_frame *f = &r->frames[r->n ? r->n - 1 : 0];

	if (r->n)
		snprintf(out, size, "%s+0x%llx (%s)", f->name, (unsigned long long)f->offset, r->dso_name);
	else
		snprintf(out, size, "[unknown] (%s)", r->dso_name);
}

/* Every frame perf printed for our files, libc and the kernel resolves to
 * the same text.  map_dso: the path our lookups use for a printed dso (the
 * stripped copy under symfs looks up the same path). */
static const unsigned char *vdso_bid;       /* the recorded [vdso] build id, or NULL */
static size_t vdso_bid_len;

static void compare_with_perf(const char *txt, const char *symfs, const char *only, int min_ours)
{
	char path[512], *line = NULL;
	size_t cap = 0;
	FILE *f;
	struct fk_symbolizer *s = new_sym(symfs, 0, 0);
	int checked = 0, ours = 0, bad = 0;

	assert_non_null(s);
	snprintf(path, sizeof(path), "%s/%s", tmp, txt);
	f = fopen(path, "r");
	assert_non_null(f);
	while (getline(&line, &cap, f) > 0) {
		unsigned long long ip;
		char want[1024], got[1024], *dso, *end;
		struct fk_sym_result res;
		struct fk_dso *d;
		int n, pid;

		line[strcspn(line, "\n")] = '\0';
		if (sscanf(line, " %llx %n", &ip, &n) != 1 || !(dso = strrchr(line, '(')))
			continue;
		snprintf(want, sizeof(want), "%s", line + n);
		end = strrchr(dso, ')');
		if (!end)
			continue;
		*end = '\0';
		dso++;
		if (only && strcmp(dso, only) != 0)
			continue;
		/* perf names a vDSO frame only from its build-id cache's copy, which
		 * a capture outside perf_vdso's has not: it prints [unknown] where
		 * libfksym reads the running vDSO (doc/SYMBOLIZE.md) */
		if (!only && strcmp(dso, "[vdso]") == 0 && strncmp(want, "[unknown]", 9) == 0)
			continue;
		if (strcmp(dso, "[kernel.kallsyms]") == 0 || (dso[0] == '[' && strcmp(dso, "[unknown]") && strcmp(dso, "[vdso]")))
			d = fk_sym_kernel(s, NULL, 0);
		else if (sscanf(dso, "/tmp/perf-%d.map%n", &pid, &n) == 1 && dso[n] == '\0')
			d = fk_sym_jitmap(s, pid);
		else if (strcmp(dso, "[vdso]") == 0)
			d = fk_sym_dso(s, dso, vdso_bid, vdso_bid_len);
		else if (dso[0] == '/')
			d = fk_sym_dso(s, dso, NULL, 0);
		else
			continue;
		assert_int_equal(fk_sym_lookup(d, ip, &res), 0);
		format(&res, got, sizeof(got));
		checked++;
		ours += only || strncmp(dso, tmp, strlen(tmp)) == 0 || strncmp(dso, "/tmp/perf-", 10) == 0;
		if (strcmp(want, got) != 0 && bad++ < 10)
			print_message("%llx: perf script: %s, libfksym: %s\n", ip, want, got);
	}
	free(line);
	fclose(f);
	fk_symbolizer_free(s);
	print_message("%s: %d frames compared, %d in the test's own files\n", txt, checked, ours);
	assert_int_equal(bad, 0);
	assert_true(ours >= min_ours);
}

static void perf_pie(void **state)
{
	(void)state;
	if (!have_perf)
		skip();
	compare_with_perf("prog.txt", NULL, NULL, 20);
}

static void perf_nopie(void **state)
{
	(void)state;
	if (!have_perf)
		skip();
	compare_with_perf("nopie.txt", NULL, NULL, 20);
}

/* The stripped copy under --symfs, its symbols from the .build-id debuginfo:
 * the same answers as perf gave for the unstripped file. */
static void perf_stripped_symfs(void **state)
{
	char symfs[512], prog[512];

	(void)state;
	if (!have_perf)
		skip();
	snprintf(symfs, sizeof(symfs), "%s/symfs", tmp);
	snprintf(prog, sizeof(prog), "%s/prog", tmp);
	compare_with_perf("prog.txt", symfs, prog, 20);
}

/* A system-wide capture: the kernel and whatever ran from /usr (libc with
 * its debuginfo when installed, compilers, shells, ...): files a package
 * manager keeps, not ones another job may rebuild between perf script and
 * the comparison. */
static void perf_system_wide(void **state)
{
	(void)state;
	if (!have_sys)
		skip();
	cache_home = "home3";
	compare_with_perf("sys.txt", NULL, NULL, 0);
	cache_home = "home";
}

/* A Go binary (golang-go), and Rust's legacy mangling demangled as perf
 * does (hash dropped), when rustc is installed. */
static void compare_program(int have, const char *txt, const char *file)
{
	char prog[512];

	if (!have)
		skip();
	snprintf(prog, sizeof(prog), "%s/%s", tmp, file);
	compare_with_perf(txt, NULL, prog, 20);
}

static void perf_go(void **state)
{
	(void)state;
	compare_program(have_go, "g.txt", "gprog");
}

static void perf_rust(void **state)
{
	(void)state;
	compare_program(have_rust, "r.txt", "rprog");
}

/* node --perf-basic-prof: JIT frames from /tmp/perf-PID.map. */
static void perf_jitmap(void **state)
{
	(void)state;
	if (!have_node)
		skip();
	compare_with_perf("j.txt", NULL, NULL, 20);
}

/* C++: templates, a member function, a lambda, demangled as perf does. */
static void perf_cpp(void **state)
{
	(void)state;
	compare_program(have_perf, "cpp.txt", "cpp");
}

/* The vDSO: by its recorded build id, from the copy perf record put in its
 * build-id cache; then, with no build id, the running kernel's own (absent
 * under valgrind, which hides it). */
static void perf_vdso(void **state)
{
	unsigned char bid[20];
	char *hex;
	size_t i;

	(void)state;
	if (!have_perf)
		skip();
	hex = slurp("HOME=%s/home2 perf buildid-list -i %s/vdso.data 2>/dev/null | awk '$2 == \"[vdso]\" { print $1 }'",
		    tmp, tmp);
	assert_true(strlen(hex) >= 40);
	for (i = 0; i < 20; i++)
		assert_int_equal(sscanf(hex + 2 * i, "%2hhx", &bid[i]), 1);
	free(hex);
	vdso_bid = bid;
	vdso_bid_len = sizeof(bid);
	cache_home = "home2";
	compare_with_perf("vdso.txt", NULL, "[vdso]", 20);
	vdso_bid = NULL;
	vdso_bid_len = 0;
	cache_home = "home";
	if (getauxval(AT_SYSINFO_EHDR))
		compare_with_perf("vdso.txt", NULL, "[vdso]", 20);
	else
		print_message("no vDSO in this process: the running kernel's copy is not tried\n");
}

/* Each of names, at nm's address in TMP/nm_file plus off, resolves in
 * TMP/file to name+off (PIE: file offset == vaddr in text). */
static void check_nm(const char *file, const char *nm_file, const char *const *names, size_t n, unsigned off)
{
	char path[512], full[512], want[1024], got[1024];
	struct fk_symbolizer *s = new_sym(NULL, 0, 0);
	struct fk_sym_result res;
	struct fk_dso *d;
	size_t i;

	snprintf(path, sizeof(path), "%s/%s", tmp, file);
	snprintf(full, sizeof(full), "%s/%s", tmp, nm_file);
	d = fk_sym_dso(s, path, NULL, 0);
	for (i = 0; i < n; i++) {
		char *out = slurp("nm %s | awk '$3 == \"%s\" { print $1 }'", full, names[i]);
		unsigned long long a = strtoull(out, NULL, 16);

		free(out);
		assert_true(a != 0);
		assert_int_equal(fk_sym_lookup(d, a + off, &res), 0);
		format(&res, got, sizeof(got));
		snprintf(want, sizeof(want), "%s+0x%x (%s)", names[i], off, path);
		assert_string_equal(got, want);
	}
	fk_symbolizer_free(s);
}

/* .gnu_debugdata: the static functions nm sees in the unstripped file. */
static void minidebuginfo(void **state)
{
	static const char *const names[] = { "leaf_static", "mid_global", "main" };

	(void)state;
	check_nm("prog-mini", "prog", names, 3, 2);
}

/* nm's address of each of the program's functions, static and global and
 * weak. */
static void nm_functions(void **state)
{
	static const char *const names[] = { "leaf_static", "mid_global", "weak_fn", "main" };

	(void)state;
	check_nm("prog", "prog", names, 4, 1);
}

/* PLT entries: NAME@plt as objdump labels them in .plt, or, as perf 6.1
 * names them, _init: fixup_end stretched it over .plt before the entries
 * were inserted, and its lookup returns whichever of the two is nearer its
 * rbtree's root (perf-data-plt.sh compares the choice with perf script). */
static void plt_entries(void **state)
{
	char path[512], *out, *p;
	struct fk_symbolizer *s = new_sym(NULL, 0, 0);
	struct fk_dso *d;
	unsigned long long init;
	int n = 0, named = 0;

	(void)state;
	snprintf(path, sizeof(path), "%s/prog", tmp);
	d = fk_sym_dso(s, path, NULL, 0);
	out = slurp("nm %s | sed -n 's/^0*\\([0-9a-f]*\\) T _init$/\\1/p'", path);
	assert_int_equal(sscanf(out, "%llx", &init), 1);
	free(out);
	out = slurp("objdump -d -j .plt %s | sed -n 's/^0*\\([0-9a-f]*\\) <\\(.*@plt\\)>:$/\\1 \\2/p'", path);
	for (p = strtok(out, "\n"); p; p = strtok(NULL, "\n")) {
		struct fk_sym_result res;
		char name[256];
		unsigned long long a;

		assert_int_equal(sscanf(p, "%llx %255s", &a, name), 2);
		assert_int_equal(fk_sym_lookup(d, a + 4, &res), 0);
		assert_int_equal(res.n, 1);
		if (strcmp(res.frames[0].name, "_init") == 0) {
			assert_int_equal(res.frames[0].offset, a + 4 - init);
		} else {
			assert_string_equal(res.frames[0].name, name);
			assert_int_equal(res.frames[0].offset, 4);
			named++;
		}
		n++;
	}
	free(out);
	assert_true(n >= 3);                  /* puts, printf, strtol */
	print_message("%d PLT entries, %d named NAME@plt, %d _init+OFFSET\n", n, named, n - named);
	fk_symbolizer_free(s);
}

/* A recorded build id that is not the file's: reported once, not used. */
static void build_id_mismatch(void **state)
{
	static const unsigned char wrong[20] = { 0xde, 0xad, 0xbe, 0xef };
	char path[512], want[1024], *own;
	struct fk_symbolizer *s = new_sym(NULL, 0, 0);
	struct fk_sym_result res;
	struct fk_dso *d;

	(void)state;
	snprintf(path, sizeof(path), "%s/prog", tmp);
	own = slurp("readelf -n %s | sed -n 's/.*Build ID: //p'", path);
	own[strcspn(own, "\n")] = '\0';
	logbuf[0] = '\0';
	d = fk_sym_dso(s, path, wrong, sizeof(wrong));
	assert_int_equal(fk_sym_lookup(d, 0x1001, &res), 0);
	assert_int_equal(res.n, 0);
	assert_string_equal(res.dso_name, path);
	assert_ptr_equal(fk_sym_dso(s, path, wrong, sizeof(wrong)), d);
	snprintf(want, sizeof(want), "%s: build id %s differs from the recorded "
		 "deadbeef00000000000000000000000000000000: not used\n", path, own);
	assert_string_equal(logbuf, want);
	free(own);
	fk_symbolizer_free(s);
}

static void missing_file(void **state)
{
	struct fk_symbolizer *s = new_sym(NULL, 0, 0);
	struct fk_sym_result res;
	char path[512], want[1024];

	(void)state;
	snprintf(path, sizeof(path), "%s/no-such-file", tmp);
	logbuf[0] = '\0';
	assert_int_equal(fk_sym_lookup(fk_sym_dso(s, path, NULL, 0), 0x1000, &res), 0);
	assert_int_equal(fk_sym_lookup(fk_sym_dso(s, path, NULL, 0), 0x1000, &res), 0);
	assert_int_equal(res.n, 0);
	snprintf(want, sizeof(want), "%s: cannot read: No such file or directory; its addresses are [unknown]\n", path);
	assert_string_equal(logbuf, want);
	/* what no path reaches is unresolved without a word */
	logbuf[0] = '\0';
	assert_int_equal(fk_sym_lookup(fk_sym_dso(s, "/memfd:sealed-1 (deleted)", NULL, 0), 0x1000, &res), 0);
	assert_int_equal(fk_sym_lookup(fk_sym_dso(s, "/usr/lib/gone.so (deleted)", NULL, 0), 0x1000, &res), 0);
	assert_int_equal(res.n, 0);
	assert_string_equal(res.dso_name, "/usr/lib/gone.so (deleted)");
	assert_string_equal(logbuf, "");
	fk_symbolizer_free(s);
}

/* --inline and --srcline against binutils' addr2line -f -i on every
 * instruction of the program's own functions (objdump lists them), so the
 * addresses inl() was inlined at are always among them. */
static void inline_srcline(void **state)
{
	char path[512], *addrs, *p;
	struct fk_symbolizer *s = new_sym(NULL, 1, 1);
	struct fk_dso *d;
	int checked = 0, inlined = 0;

	(void)state;
	snprintf(path, sizeof(path), "%s/prog", tmp);
	d = fk_sym_dso(s, path, NULL, 0);
	addrs = slurp("for f in leaf_static mid_global weak_fn main; do objdump -d --no-show-raw-insn "
		      "--disassemble=$f %s; done | sed -n 's/^ *\\([0-9a-f][0-9a-f]*\\):.*/\\1/p'", path);
	for (p = strtok(addrs, "\n"); p; p = strtok(NULL, "\n")) {
		unsigned long long ip = strtoull(p, NULL, 16);
		struct fk_sym_result res;
		char *want, got[4096];
		size_t k = 0;
		unsigned i;

		assert_int_equal(fk_sym_lookup(d, ip, &res), 0);
		assert_true(res.n >= 1);
		for (i = 0; i < res.n; i++)
			k += (size_t)snprintf(got + k, sizeof(got) - k, "%s\n%s:%u\n",
					      i + 1 == res.n ? "" : res.frames[i].name,
					      res.frames[i].file ? res.frames[i].file : "??", res.frames[i].line);
		/* addr2line names the outermost function by its DWARF name; the
		 * real function's name is the ELF symbol's (checked above). */
		want = slurp("addr2line -f -i -e %s 0x%llx | sed 's/ (discriminator [0-9]*)$//' | "
			     "awk '{ l[NR] = $0 } END { for (i = 1; i <= NR; i++) print (i == NR - 1 ? \"\" : l[i]) }'",
			     path, ip);
		if (strcmp(got, want) != 0)
			print_message("0x%llx: addr2line:\n%slibfksym:\n%s", ip, want, got);
		assert_string_equal(got, want);
		free(want);
		inlined += res.n > 1;
		checked++;
	}
	free(addrs);
	fk_symbolizer_free(s);
	print_message("inline_srcline: %d addresses compared, %d with inline frames\n", checked, inlined);
	assert_true(checked >= 20);
	assert_true(inlined >= 1);                 /* inl() into mid_global */
}

/* JIT maps: "START SIZE name" lines; a symlink, or a file someone else
 * owns, is refused. */
static void jitmap(void **state)
{
	char path[64], want[256];
	struct fk_symbolizer *s;
	struct fk_sym_result res;
	int pid = (int)getpid();
	FILE *f;

	(void)state;
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", pid);
	unlink(path);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("7f0000001000 40 LazyCompile:~fib /app.js:1\n7f0000001040 20 Builtin:Add\n", f);
	fclose(f);
	s = new_sym(NULL, 0, 0);
	assert_int_equal(fk_sym_lookup(fk_sym_jitmap(s, pid), 0x7f0000001044, &res), 0);
	assert_int_equal(res.n, 1);
	assert_string_equal(res.frames[0].name, "Builtin:Add");
	assert_int_equal(res.frames[0].offset, 4);
	assert_string_equal(res.dso_name, path);
	assert_int_equal(fk_sym_lookup(fk_sym_jitmap(s, pid), 0x7f0000001000, &res), 0);
	assert_string_equal(res.frames[0].name, "LazyCompile:~fib /app.js:1");
	assert_int_equal(fk_sym_lookup(fk_sym_jitmap(s, pid), 0x7f0000001060, &res), 0);
	assert_int_equal(res.n, 0);
	fk_symbolizer_free(s);

	if (geteuid() == 0) {                      /* owned by nobody: refused */
		assert_int_equal(chown(path, 65534, 65534), 0);
		logbuf[0] = '\0';
		s = new_sym(NULL, 0, 0);
		assert_int_equal(fk_sym_lookup(fk_sym_jitmap(s, pid), 0x7f0000001044, &res), 0);
		assert_int_equal(res.n, 0);
		snprintf(want, sizeof(want), "%s: not used: owned by uid 65534, neither you, root nor the process's "
			 "user, or not a plain file only its owner can write\n", path);
		assert_string_equal(logbuf, want);
		fk_symbolizer_free(s);
	}
	unlink(path);
	{                                          /* a symlink: refused */
		char target[512];

		snprintf(target, sizeof(target), "%s/prog.c", tmp);
		assert_int_equal(symlink(target, path), 0);
		logbuf[0] = '\0';
		s = new_sym(NULL, 0, 0);
		assert_int_equal(fk_sym_lookup(fk_sym_jitmap(s, pid), 0x7f0000001044, &res), 0);
		assert_int_equal(res.n, 0);
		snprintf(want, sizeof(want), "%s: cannot read: Too many levels of symbolic links; its addresses are [unknown]\n", path);
		assert_string_equal(logbuf, want);
		fk_symbolizer_free(s);
		unlink(path);
	}
}

/* A kallsyms file (--kallsyms): kernel and module symbols, sizes fixed up
 * as perf's symbols__fixup_end does, modules named [mod]; the expected
 * answers are worked by hand from perf's rules (symbol.c). */
/* perf's choices on a small kallsyms (text): its rules, line order aside
 * from symbols at one address (util/symbol.c, perf 6.1). */
static void check_kallsyms(const char *text)
{
	char path[512];
	struct fk_symbolizer *s;
	struct fk_sym_config cfg = { .demangle = 1 };
	struct fk_sym_result res;
	struct fk_dso *k;

	write_file("kallsyms", text);
	snprintf(path, sizeof(path), "%s/kallsyms", tmp);
	cfg.kallsyms = path;
	s = fk_symbolizer_new(&cfg, &host);
	k = fk_sym_kernel(s, NULL, 0);
	assert_int_equal(fk_sym_lookup(k, 0xffffffff81000010, &res), 0);
	assert_string_equal(res.frames[0].name, "_text");     /* _stext keeps length 0 after fixup_end */
	assert_int_equal(fk_sym_lookup(k, 0xffffffff81000250, &res), 0);
	/* local_fn ends where weak_alias starts (fixup_end before
	 * fixup_duplicate): the one with a length wins; r is skipped */
	assert_string_equal(res.frames[0].name, "weak_alias");
	assert_int_equal(res.frames[0].offset, 0x150);
	assert_string_equal(res.dso_name, "[kernel.kallsyms]");
	assert_int_equal(fk_sym_lookup(k, 0xffffffff81001fff, &res), 0);
	assert_string_equal(res.frames[0].name, "last_fn");   /* to the page after, not into the module */
	assert_int_equal(fk_sym_lookup(k, 0xffffffff81002000, &res), 0);
	assert_int_equal(res.n, 0);
	assert_int_equal(fk_sym_lookup(k, 0xffffffffc0001090, &res), 0);
	assert_string_equal(res.frames[0].name, "mod_fn2");
	assert_string_equal(res.dso_name, "[mymod]");
	assert_int_equal(fk_sym_lookup(k, 0xffffffffc0001010, &res), 0);
	assert_string_equal(res.frames[0].name, "mod_fn");
	assert_int_equal(res.frames[0].offset, 0x10);
	/* module memory interleaves (kernels since 6.4 allocate text and
	 * data apart): other's text lies between mymod's text and data */
	assert_int_equal(fk_sym_lookup(k, 0xffffffffc0002010, &res), 0);
	assert_string_equal(res.frames[0].name, "other_fn");
	assert_string_equal(res.dso_name, "[other]");
	/* recorded at another boot, _text 0x2000000 lower */
	assert_int_equal(fk_sym_kernel_reloc(k, "_text", 0xffffffff7f000000), 0);
	assert_int_equal(fk_sym_lookup(k, 0xffffffff7f000250, &res), 0);
	assert_string_equal(res.frames[0].name, "weak_alias");
	assert_int_equal(res.frames[0].offset, 0x150);
	assert_int_equal(fk_sym_kernel_reloc(k, "_etext", 0), -1);
	fk_symbolizer_free(s);
}

static void kallsyms_file(void **state)
{
	(void)state;
	check_kallsyms("ffffffff81000000 T _stext\n"
		       "ffffffff81000000 T _text\n"
		       "ffffffff81000100 t local_fn\n"
		       "ffffffff81000100 W weak_alias\n"
		       "ffffffff81000200 r some_rodata\n"
		       "ffffffff81000300 T last_fn\n"
		       "ffffffffc0001000 t mod_fn\t[mymod]\n"
		       "ffffffffc0001080 T mod_fn2\t[mymod]\n"
		       "ffffffffc0002000 t other_fn\t[other]\n"
		       "ffffffffc0003000 d mod_data\t[mymod]\n");
}

/* The same symbols in runs out of order (what the merge sort of
 * fk_symtab_finish meets), symbols at one address still in file order,
 * and the last line without its newline: the same choices. */
static void kallsyms_unsorted(void **state)
{
	(void)state;
	check_kallsyms("ffffffffc0001080 T mod_fn2\t[mymod]\n"
		       "ffffffff81000300 T last_fn\n"
		       "ffffffff81000000 T _stext\n"
		       "ffffffffc0001000 t mod_fn\t[mymod]\n"
		       "ffffffff81000100 t local_fn\n"
		       "ffffffffc0002000 t other_fn\t[other]\n"
		       "ffffffff81000000 T _text\n"
		       "ffffffff81000100 W weak_alias\n"
		       "ffffffff81000200 r some_rodata\n"
		       "ffffffffc0003000 d mod_data\t[mymod]");
}

/* The red-black invariants of a table's tree, its in-order walk being v's
 * order (by start, ties in insertion order, as perf's tree keeps them):
 * the black height below x, or -1. */
static int rb_check(const struct fk_symtab *t, uint32_t x, uint32_t parent, size_t *seen, uint64_t *prev)
{
	int l, r;

	if (x == FK_RB_NIL)
		return 1;
	assert_true(x < t->n);
	assert_int_equal(t->rb[x].parent, parent);
	if (t->rb[x].red)
		assert_true(parent != FK_RB_NIL && !t->rb[parent].red);
	l = rb_check(t, t->rb[x].kid[0], x, seen, prev);
	assert_true(t->v[x].start >= *prev);
	*prev = t->v[x].start;
	(*seen)++;
	r = rb_check(t, t->rb[x].kid[1], x, seen, prev);
	assert_int_equal(l, r);
	return l + !t->rb[x].red;
}

static void rb_valid(const struct fk_symtab *t, size_t n)
{
	size_t seen = 0;
	uint64_t prev = 0;

	assert_non_null(t->rb);
	assert_false(t->rb[t->root].red);
	rb_check(t, t->root, FK_RB_NIL, &seen, &prev);
	assert_int_equal(seen, n);
}

/* The shape lib/rbtree.c gives: 1..7 inserted in order make 2 the root,
 * over 1 and 4, and 4 over 3 and 6, 6 over 5 and 7.  Then a random table
 * (many starts shared: fixup_duplicate erases nodes, through every case of
 * the erasure) stays a red-black tree holding exactly the symbols kept, and
 * so after more entries inserted as the PLT's are; a zero-size symbol
 * stretched over a later sized one is found only where the walk meets it
 * first (the root's symbol here). */
static void rbtree_shape(void **state)
{
	struct fk_symbolizer *s = new_sym(NULL, 0, 0);
	struct fk_symtab t = { 0 };
	uint32_t x;
	size_t i;

	(void)state;
	for (i = 1; i <= 7; i++)
		assert_int_equal(fk_symtab_add(&t, i * 16, 16, 1, "f"), 0);
	fk_symtab_finish_rb(s, &t);
	rb_valid(&t, 7);
	x = t.root;
	assert_int_equal(t.v[x].start, 32);
	assert_int_equal(t.v[t.rb[x].kid[0]].start, 16);
	x = t.rb[x].kid[1];
	assert_int_equal(t.v[x].start, 64);
	assert_int_equal(t.v[t.rb[x].kid[0]].start, 48);
	x = t.rb[x].kid[1];
	assert_int_equal(t.v[x].start, 96);
	assert_int_equal(t.v[t.rb[x].kid[0]].start, 80);
	assert_int_equal(t.v[t.rb[x].kid[1]].start, 112);
	fk_symtab_free(&t);

	/* _init (zero-size, at 0) stretched to _start's 0x60 over the stubs
	 * at 0x30 and 0x40, inserted after it: _start the root, a@plt over
	 * _init and b@plt.  The walk meets a stub before _init, and for 0x54
	 * (past b@plt, _init's) goes right of a@plt and b@plt: nothing */
	assert_int_equal(fk_symtab_add(&t, 0, 0, 1, "_init"), 0);
	assert_int_equal(fk_symtab_add(&t, 0x60, 0x10, 1, "_start"), 0);
	assert_int_equal(fk_symtab_add(&t, 0x70, 0x10, 1, "main"), 0);
	fk_symtab_finish_rb(s, &t);
	assert_int_equal(fk_symtab_add(&t, 0x30, 0x10, 1, "a@plt"), 0);
	assert_int_equal(fk_symtab_add(&t, 0x40, 0x10, 1, "b@plt"), 0);
	fk_symtab_insert_rb(s, &t);
	rb_valid(&t, 5);
	assert_string_equal(t.v[t.root].name, "_start");
	assert_string_equal(t.v[t.rb[t.root].kid[0]].name, "a@plt");
	assert_string_equal(fk_symtab_find(&t, 0x34)->name, "a@plt");
	assert_string_equal(fk_symtab_find(&t, 0x44)->name, "b@plt");
	assert_string_equal(fk_symtab_find(&t, 0x10)->name, "_init");
	assert_null(fk_symtab_find(&t, 0x54));
	fk_symtab_free(&t);

	srand(7);
	for (i = 0; i < 5000; i++)
		assert_int_equal(fk_symtab_add(&t, (uint64_t)(rand() % 1500) * 4, (uint64_t)(rand() % 3) * 4,
					       rand() % 3, i % 2 ? "_a" : "bb"), 0);
	fk_symtab_finish_rb(s, &t);
	assert_true(t.n < 1500);
	rb_valid(&t, t.n);
	for (i = 1; i < t.n; i++)
		assert_true(t.v[i].start > t.v[i - 1].start);
	for (i = 0; i < 300; i++)
		assert_int_equal(fk_symtab_add(&t, (uint64_t)(rand() % 1500) * 4 + 2, 4, 1, "p@plt"), 0);
	fk_symtab_insert_rb(s, &t);
	rb_valid(&t, t.n);
	fk_symtab_free(&t);
	fk_symbolizer_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(perf_pie),
		cmocka_unit_test(perf_nopie),
		cmocka_unit_test(perf_stripped_symfs),
		cmocka_unit_test(perf_system_wide),
		cmocka_unit_test(perf_cpp),
		cmocka_unit_test(perf_go),
		cmocka_unit_test(perf_jitmap),
		cmocka_unit_test(perf_rust),
		cmocka_unit_test(perf_vdso),
		cmocka_unit_test(minidebuginfo),
		cmocka_unit_test(nm_functions),
		cmocka_unit_test(plt_entries),
		cmocka_unit_test(build_id_mismatch),
		cmocka_unit_test(missing_file),
		cmocka_unit_test(inline_srcline),
		cmocka_unit_test(jitmap),
		cmocka_unit_test(kallsyms_file),
		cmocka_unit_test(kallsyms_unsorted),
		cmocka_unit_test(rbtree_shape),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
