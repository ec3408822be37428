/*
 * Who is being served: a per-call context instead of a static log prefix
 * and a global error counter (the model is nbdkit's PUSH_CONTEXT_FOR_SCOPE
 * with its thread-local storage).
 *
 * A call pushes a context for its scope; it is popped when the scope ends,
 * however it ends, so no caller saves and restores anything by hand.  Each
 * thread has its own stack of contexts (thread-local): a worker the engine
 * starts is handed the context of the input it parses for (FK_CTX_SERVE),
 * so its messages carry that input plugin's prefix and its failures mark
 * that input's call.
 *
 * What a context gives a message (engine/log.c):
 * - the prefix: the innermost context naming a plugin gives "[KIND:NAME] "
 *   (then its origin and ": ", when it has one); one with FK_CTX_ENGINE
 *   gives none (the engine speaks for itself); others inherit theirs;
 * - silence: nothing is printed inside a context with FK_CTX_QUIET;
 * - the mark: an error logged inside a context marks it and every context
 *   it serves as "reported", up to and including the nearest quiet one (a
 *   message nobody saw is no report to whoever asked for silence).  A call
 *   that fails reports once: fk_ctx_fail says why only when nothing inside
 *   the call did.
 *
 * Contexts live on their pushers' stacks: a context handed to a worker
 * must outlive the worker (the engine joins its workers before it returns).
 * A thread the engine did not start (a plugin's own) has no context: its
 * messages carry no prefix and mark nothing, but host->input_error marks the
 * call that parses the input named (fk_input.ctx).
 */
#ifndef FK_CONTEXT_H
#define FK_CONTEXT_H

#include <stdbool.h>
#include <stddef.h>

struct fk_plugin;

enum fk_ctx_flags {
	FK_CTX_ENGINE = 1 << 0, /* no plugin's prefix inside (unless an inner context names one) */
	FK_CTX_QUIET = 1 << 1,  /* print nothing inside: the caller reports what matters */
};

struct fk_ctx {
	/* Set by the pusher (FK_CTX_SCOPE's designated initializers); the
	 * strings are borrowed and must outlive the scope. */
	const struct fk_plugin *plugin; /* the plugin served: its prefix leads each message */
	const char *origin;    /* where its options were written ("job.yaml:12:5"), after the prefix */
	const char *instance;  /* what is served, by name (an input, an output path, a filter's
	                        * place): the "NAME: " of fk_ctx_fail's message */
	unsigned flags;        /* enum fk_ctx_flags */
	struct fk_ctx *up;     /* the context served: NULL for this thread's current one */
	/* Kept by the module. */
	struct fk_ctx *prev;   /* this thread's context before the push */
	int reported;          /* an error was logged inside (atomic: workers mark it) */
};

/* Make cx this thread's current context and return it; cx->up defaults
 * to the context current before. */
struct fk_ctx *fk_ctx_push(struct fk_ctx *cx);
/* Put back the context current before *cx was pushed (a cleanup handler:
 * takes the variable's address). */
void fk_ctx_pop(struct fk_ctx **cx);
/* This thread's current context, NULL outside every call. */
struct fk_ctx *fk_ctx_current(void);
/* Whether an error was logged inside cx (on any thread serving it). */
bool fk_ctx_reported(const struct fk_ctx *cx);
/* Report a failure once: when rc < 0 and nothing inside cx said why, log
 * "INSTANCE: " (when cx names one) + fk_strerror(rc) in cx.  Returns rc. */
int fk_ctx_fail(struct fk_ctx *cx, int rc);

/* Push a context for the rest of the enclosing scope, named `name` (a
 * struct fk_ctx *), with the fields given as designated initializers (at
 * least one): FK_CTX_SCOPE(cx, .plugin = pl, .origin = where). */
#define FK_CTX_SCOPE(name, ...)                                                     \
	__attribute__((cleanup(fk_ctx_pop), unused)) struct fk_ctx *name =              \
	        fk_ctx_push(&(struct fk_ctx){ __VA_ARGS__ })
/* A context that only collects the marks of one call (for fk_ctx_fail). */
#define FK_CTX_CALL(name) FK_CTX_SCOPE(name, .plugin = NULL)
/* On a worker: serve `handed`, the context the work was handed with. */
#define FK_CTX_SERVE(name, handed) FK_CTX_SCOPE(name, .up = (handed))

/* ---- what log.c asks ----------------------------------------------------- */
/* Into buf (size n): the prefix of a message logged in cx ("" for none). */
void fk_ctx_prefix(const struct fk_ctx *cx, char *buf, size_t n);
/* Whether cx or a context it serves is quiet. */
bool fk_ctx_quiet(const struct fk_ctx *cx);
/* An error was logged in cx: mark it and those it serves, up to the
 * nearest quiet one. */
void fk_ctx_mark(struct fk_ctx *cx);

#endif
