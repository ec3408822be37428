/* One logging function for the engine and, through the host table, plugins. */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "fk.h"

int fk_verbosity = FK_LOG_WARN;
const char *fk_progname = "flamekit";
void (*fk_log_hook)(int level, const char *line);
static const char *prefix;
static atomic_ulong errors;

const char *fk_log_set_prefix(const char *p)
{
	const char *old = prefix;

	prefix = p;
	return old;
}

const char *fk_log_prefix(void) { return prefix; }

static void vlog_with(const char *pre, int level, const char *fmt, va_list ap)
{
	char line[4096];
	int n;

	if (level == FK_LOG_ERROR)
		atomic_fetch_add(&errors, 1);
	if (level > fk_verbosity)
		return;
	n = snprintf(line, sizeof line, "%s", pre ? pre : "");
	if (n < 0 || (size_t)n >= sizeof line)
		n = 0;
	vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
	if (fk_log_hook) {
		fk_log_hook(level, line);
		return;
	}
	fprintf(stderr, "%s: %s%s\n", fk_progname,
	        level == FK_LOG_WARN ? "warning: " : "", line);
}

void fk_vlog(int level, const char *fmt, va_list ap)
{
	vlog_with(prefix, level, fmt, ap);
}

void fk_log_bare(int level, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vlog_with(NULL, level, fmt, ap);
	va_end(ap);
}

void fk_log(int level, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fk_vlog(level, fmt, ap);
	va_end(ap);
}

unsigned long fk_log_errors(void) { return atomic_load(&errors); }

int fk_log_unreported(int rc, unsigned long mark, const char *name)
{
	if (rc < 0 && fk_log_errors() == mark) {
		if (name)
			fk_log(FK_LOG_ERROR, "%s: %s", name, fk_strerror(rc));
		else
			fk_log(FK_LOG_ERROR, "%s", fk_strerror(rc));
	}
	return rc;
}
