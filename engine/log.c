/* One logging function for the engine and, through the host table, plugins:
 * each message takes its prefix, silence and error mark from the calling
 * thread's context (context.h). */
#include <stdio.h>
#include <string.h>

#include "fk.h"

const char *fk_progname = "flamekit";
void (*fk_log_hook)(int level, const char *line);

static void vlog_in(struct fk_ctx *cx, bool bare, int level, const char *fmt, va_list ap)
{
	char line[4096];
	size_t n = 0;

	if (level == FK_LOG_ERROR)
		fk_ctx_mark(cx);
	if (level > fk_log_verbosity() || fk_ctx_quiet(cx))
		return;
	if (!bare) {
		fk_ctx_prefix(cx, line, sizeof line);
		n = strlen(line);
	}
	vsnprintf(line + n, sizeof line - n, fmt, ap);
	if (fk_log_hook) {
		fk_log_hook(level, line);
		return;
	}
	fprintf(stderr, "%s: %s%s\n", fk_progname,
	        level == FK_LOG_WARN ? "warning: " : "", line);
}

void fk_vlog(int level, const char *fmt, va_list ap)
{
	vlog_in(fk_ctx_current(), false, level, fmt, ap);
}

void fk_log_bare(int level, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vlog_in(fk_ctx_current(), true, level, fmt, ap);
	va_end(ap);
}

void fk_log(int level, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fk_vlog(level, fmt, ap);
	va_end(ap);
}

int fk_ctx_fail(struct fk_ctx *cx, int rc)
{
	if (rc >= 0 || fk_ctx_reported(cx))
		return rc;
	FK_CTX_SERVE(here, cx);
	if (cx->instance)
		fk_log(FK_LOG_ERROR, "%s: %s", cx->instance, fk_strerror(rc));
	else
		fk_log(FK_LOG_ERROR, "%s", fk_strerror(rc));
	return rc;
}
