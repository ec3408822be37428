/*
 * libFuzzer harness for the whole YAML job loader: what `flamekit run
 * [--set KEY=VALUE ...] JOB.yaml` does, from reading the file to rendering
 * the outputs.  fuzz/build.sh compiles the engine, this file and the
 * plugins listed in fuzz/job.sources (input folded and perf, filter grep
 * and lua, output folded and svg, each with its flamekit_plugin_init
 * renamed) into one program with ASan and UBSan; the plugins join the
 * registry through fk_registry_add_builtin, without dlopen.
 *
 * The input is split at its first NUL byte: what comes before is the job
 * file, written to WORK/job/job.yaml; what comes after is cut at every
 * further NUL into --set strings (at most MAX_SETS; empty ones are passed
 * too, they are errors like any other).  A job file holding a NUL byte is
 * covered by tests/job.sh instead.
 *
 * WORK is a directory the harness makes with mkdtemp at start and removes
 * at exit.  WORK/job/ holds the job file and its data: data/a.folded,
 * data/b.folded, data/perf.txt (small inputs), data/f.lua and
 * data/args.lua (filter scripts), and an empty directory sub/, so that the
 * relative paths of a job resolve to real files.
 *
 * Each input is then:
 *   1. fk_job_load with the --set strings (errors are expected);
 *   2. when the job reads nothing but regular files under WORK/job/data/
 *      and writes nothing but files directly in WORK/job/ (or stdout,
 *      which is /dev/null here), the svg palette map (cp, palette-file)
 *      included: fk_job_check (compiling the Lua scripts, evaluating
 *      args), then, on the same job, fk_job_run from WORK/job; the
 *      outputs are removed afterwards;
 *   3. otherwise fk_job_check only.  A job naming an absolute path, "..",
 *      stdin or /dev/zero is loaded and checked but never run, so the
 *      harness never writes outside WORK and never blocks on a device.
 * Running costs little with inputs this small (the folded and svg
 * renderers on a few stacks) and reaches the pipeline, the filters' frame
 * and sample callbacks and the renderers' options, which loading alone
 * never does.
 *
 * glob() is wrapped (-Wl,--wrap=glob, see job.sources): an input pattern
 * is expanded only when it lies under WORK, because a pattern with a star
 * in every component from the root is a legal job that walks the whole
 * file system and would look like a hang.
 *
 * Errors the job reports are fine; a crash, a sanitizer report, a leak or a
 * hang is a bug.  FK_FUZZ_VERBOSE=1 shows the messages and whether each job
 * ran; FK_FUZZ_JOB_RUN=0 never runs a job (load and check only).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fk.h"
#include "job.h"

#define MAX_SETS 16

const struct fk_plugin_header *fk_fuzz_input_folded_init(void);
const struct fk_plugin_header *fk_fuzz_input_perf_init(void);
const struct fk_plugin_header *fk_fuzz_filter_grep_init(void);
const struct fk_plugin_header *fk_fuzz_filter_lua_init(void);
const struct fk_plugin_header *fk_fuzz_output_folded_init(void);
const struct fk_plugin_header *fk_fuzz_output_svg_init(void);

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int __real_glob(const char *pattern, int flags, int (*errfunc)(const char *, int), glob_t *g);
int __wrap_glob(const char *pattern, int flags, int (*errfunc)(const char *, int), glob_t *g);

static struct fk_registry reg;
static char work[64];         /* WORK, from mkdtemp */
static char jobdir[PATH_MAX]; /* WORK/job, as realpath gives it */
static char datadir[PATH_MAX];
static char jobfile[PATH_MAX];
static bool verbose;
static bool run_jobs = true;

static void quiet(int level, const char *line)
{
	(void)level;
	(void)line;
}

static void put(const char *rel, const char *text)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", jobdir, rel);
	if (!(f = fopen(path, "w")) || fputs(text, f) < 0 || fclose(f) != 0) {
		fprintf(stderr, "fuzz-job: cannot write %s: %s\n", path, strerror(errno));
		exit(2);
	}
}

/* Remove WORK at exit: everything in it was made by this harness. */
static void rm_tree(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (d) {
		while ((e = readdir(d))) {
			char p[PATH_MAX];
			struct stat st;
			if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
				continue;
			snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
			if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode))
				rm_tree(p);
			else
				unlink(p);
		}
		closedir(d);
	}
	rmdir(dir);
}

static void cleanup(void)
{
	fk_registry_free(&reg);
	if (work[0])
		rm_tree(work);
}

/* Under dir (a realpath), as a resolved path? */
static bool under(const char *path, const char *dir)
{
	size_t n = strlen(dir);
	return strncmp(path, dir, n) == 0 && path[n] == '/';
}

int __wrap_glob(const char *pattern, int flags, int (*errfunc)(const char *, int), glob_t *g)
{
	if (strncmp(pattern, work, strlen(work)) != 0 || strstr(pattern, "..")) {
		memset(g, 0, sizeof *g);
		return GLOB_NOMATCH;
	}
	return __real_glob(pattern, flags, errfunc, g);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static const struct {
		const struct fk_plugin_header *(*init)(void);
		const char *name;
	} builtin[] = {
		{ fk_fuzz_input_folded_init, "(built in) input-folded" },
		{ fk_fuzz_input_perf_init, "(built in) input-perf" },
		{ fk_fuzz_filter_grep_init, "(built in) filter-grep" },
		{ fk_fuzz_filter_lua_init, "(built in) filter-lua" },
		{ fk_fuzz_output_folded_init, "(built in) output-folded" },
		{ fk_fuzz_output_svg_init, "(built in) output-svg" },
	};
	const char *tmp = getenv("TMPDIR");
	char path[PATH_MAX];
	int fd;

	(void)argc;
	(void)argv;
	verbose = getenv("FK_FUZZ_VERBOSE") != NULL;
	if (getenv("FK_FUZZ_JOB_RUN") && strcmp(getenv("FK_FUZZ_JOB_RUN"), "0") == 0)
		run_jobs = false;
	if (!verbose)
		fk_log_hook = quiet;
	/* A job may read stdin ("-") or write stdout: neither may block or
	 * mix with libFuzzer's output (which goes to stderr). */
	if ((fd = open("/dev/null", O_RDWR)) < 0 || dup2(fd, 0) < 0 || dup2(fd, 1) < 0) {
		perror("fuzz-job: /dev/null");
		exit(2);
	}
	close(fd);
	snprintf(work, sizeof work, "%s/fk-fuzz-job.XXXXXX", tmp && *tmp && strlen(tmp) < 32 ? tmp : "/tmp");
	if (!mkdtemp(work)) {
		perror("fuzz-job: mkdtemp");
		exit(2);
	}
	snprintf(path, sizeof path, "%s/job", work);
	if (mkdir(path, 0700) < 0 || !realpath(path, jobdir)) {
		perror("fuzz-job: WORK/job");
		exit(2);
	}
	/* glob must see the same spelling as the resolved paths */
	if (!realpath(work, path) || strlen(path) >= sizeof work) {
		perror("fuzz-job: WORK");
		exit(2);
	}
	strcpy(work, path);
	atexit(cleanup);
	snprintf(datadir, sizeof datadir, "%s/data", jobdir);
	snprintf(path, sizeof path, "%s/sub", jobdir);
	if (mkdir(datadir, 0700) < 0 || mkdir(path, 0700) < 0) {
		perror("fuzz-job: WORK/job/data");
		exit(2);
	}
	snprintf(jobfile, sizeof jobfile, "%s/job.yaml", jobdir);
	put("data/a.folded", "main;parse 2\nmain;parse;lex 5\nmain;render 3\n");
	put("data/b.folded", "main;parse 2\nmain;parse;lex_[k] 5\nother;work 1\n");
	put("data/perf.txt",
	    "prog 1234 [000] 100.000001: 1 cycles:\n"
	    "\tffffffff81000001 do_syscall_64+0x1 ([kernel.kallsyms])\n"
	    "\t00005555aaaa0001 main+0x11 (/usr/bin/prog)\n"
	    "\n"
	    "prog 1234 [000] 100.000002: 1 cycles:\n"
	    "\t00005555aaaa0002 work+0x22 (/usr/bin/prog)\n"
	    "\t00005555aaaa0001 main+0x11 (/usr/bin/prog)\n\n");
	put("data/f.lua",
	    "-- drop the frame named args.drop (default lex), colour kernel frames,\n"
	    "-- cut deep stacks, rename the rest\n"
	    "local drop = (args and args.drop) or 'lex'\n"
	    "function frame(f)\n"
	    "\tif f.name == drop then f:drop() return end\n"
	    "\tif f.kind == 'kernel' then f:colour('orange') end\n"
	    "\tif args and args.prefix then f:rename(args.prefix .. f.name) end\n"
	    "end\n"
	    "function sample(s)\n"
	    "\tif #s > 3 then s:cut(3) end\n"
	    "\tif s.weight > 4 then s:insert(1, 'heavy') end\n"
	    "end\n");
	put("data/args.lua", "function sample(s)\n\tif args and args.skip then s:drop() end\nend\n");
	if (fk_registry_init(&reg) < 0)
		exit(2);
	for (size_t i = 0; i < sizeof builtin / sizeof *builtin; i++)
		if (fk_registry_add_builtin(&reg, builtin[i].init(), builtin[i].name) < 0) {
			fprintf(stderr, "fuzz-job: %s refused\n", builtin[i].name);
			exit(2);
		}
	return 0;
}

/* Is p a file the harness may write: a bare name (the run happens in
 * WORK/job) or a path whose directory is WORK/job, and not a fixture? */
static bool writable(const char *p)
{
	const char *slash = strrchr(p, '/'), *base = slash ? slash + 1 : p;
	char dir[PATH_MAX], real[PATH_MAX];

	if (!*base || strcmp(base, ".") == 0 || strcmp(base, "..") == 0 ||
	    strcmp(base, "job.yaml") == 0 || strcmp(base, "data") == 0 || strcmp(base, "sub") == 0)
		return false;
	if (!slash)
		return true;
	if ((size_t)(slash - p) >= sizeof dir)
		return false;
	memcpy(dir, p, (size_t)(slash - p));
	dir[slash - p] = '\0';
	return realpath(slash == p ? "/" : dir, real) && strcmp(real, jobdir) == 0;
}

/* The file an output plugin writes besides its output, if any: the svg
 * plugin's palette map (palette-file, relative to the current directory)
 * when its cp option is on. */
static const char *side_file(const struct fk_output_spec *o)
{
	const struct fk_option *cp = fk_option_find(o->plugin, "cp");
	const struct fk_option *pf = fk_option_find(o->plugin, "palette-file");

	if (!o->opts || !cp || !pf || cp->type != FK_OPT_FLAG || pf->type != FK_OPT_STRING ||
	    !*(const int *)((const char *)o->opts + cp->offset))
		return NULL;
	return *(const char *const *)((const char *)o->opts + pf->offset);
}

/* May the job run: does it read only regular files under WORK/job/data and
 * write only files directly in WORK/job (or stdout)? */
static bool contained(const struct fk_job *job)
{
	const struct fk_input_spec *in;
	const struct fk_output_spec *out;
	char real[PATH_MAX];
	struct stat st;
	size_t n;

	in = fk_job_inputs(job, &n);
	for (size_t i = 0; i < n; i++)
		if (!realpath(in[i].path, real) || !under(real, datadir) || stat(real, &st) < 0 ||
		    !S_ISREG(st.st_mode))
			return false;
	out = fk_job_outputs(job, &n);
	for (size_t i = 0; i < n; i++) {
		const char *p = out[i].path, *side = side_file(&out[i]);
		/* the loader makes output paths absolute (the job file's is) */
		if (p && strcmp(p, "-") != 0 && (p[0] != '/' || !writable(p)))
			return false;
		if (side && !writable(side))
			return false;
	}
	return true;
}

/* Remove what a run wrote: every entry of WORK/job but the fixtures. */
static void clean_outputs(void)
{
	DIR *d = opendir(jobdir);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		char p[PATH_MAX];
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 ||
		    strcmp(e->d_name, "data") == 0 || strcmp(e->d_name, "sub") == 0 ||
		    strcmp(e->d_name, "job.yaml") == 0)
			continue;
		snprintf(p, sizeof p, "%s/%s", jobdir, e->d_name);
		unlink(p);
	}
	closedir(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nul = memchr(data, 0, size);
	size_t doclen = nul ? (size_t)(nul - data) : size;
	const char *sets[MAX_SETS];
	char *tail = NULL;
	size_t nsets = 0;
	struct fk_job *job = NULL;
	FILE *f;

	f = fopen(jobfile, "wb");
	if (!f || (doclen && fwrite(data, 1, doclen, f) != doclen) || fclose(f) != 0) {
		perror("fuzz-job: job.yaml");
		abort();
	}
	if (nul) {
		/* one extra byte: the last piece gets its NUL too */
		size_t n = size - doclen - 1;
		char *p;
		if (!(tail = malloc(n + 1)))
			abort();
		memcpy(tail, nul + 1, n);
		tail[n] = '\0';
		for (p = tail; nsets < MAX_SETS; p += strlen(p) + 1) {
			sets[nsets++] = p;
			if (p + strlen(p) >= tail + n)
				break;
		}
	}
	if (fk_job_load(&job, jobfile, &reg, sets, nsets) == 0) {
		if (run_jobs && contained(job)) {
			/* Check, then run the same job object, as a tool would
			 * (this once crashed: the check freed the filters'
			 * options).  The run happens in WORK/job, where a
			 * plugin's relative side file (the svg palette map)
			 * lands. */
			int rc = fk_job_check(job), cwd;
			if (rc < 0 && verbose)
				fprintf(stderr, "fuzz-job: checked, not run: %s\n", fk_strerror(rc));
			if (rc == 0) {
				if ((cwd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0 ||
				    chdir(jobdir) < 0)
					abort();
				rc = fk_job_run(job, 1, 1, 0);
				if (fchdir(cwd) < 0)
					abort();
				close(cwd);
				clean_outputs();
				if (verbose)
					fprintf(stderr, "fuzz-job: checked and ran the job: %s\n", fk_strerror(rc));
			}
		} else {
			int rc = fk_job_check(job);
			if (verbose)
				fprintf(stderr, "fuzz-job: checked, not run: %s\n", fk_strerror(rc));
		}
		fk_job_free(job);
	}
	free(tail);
	return 0;
}
