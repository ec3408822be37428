/*
 * The lua filter's parts (lua.c: the instance and the descriptor;
 * sandbox.c: the trimmed libraries, the memory and instruction limits and
 * protected calls; costs.c: the library calls charged before they run;
 * handles.c: frames and samples as userdata, and the calls that hand them
 * to the script).  Every lf_ function is private to
 * the module: only flamekit_plugin_init is exported.
 */
#ifndef FK_LUAFILTER_H
#define FK_LUAFILTER_H

#include <stdbool.h>
#include <stddef.h>

#include <lua.h>

#include <flamekit/plugin.h>

#define FRAME_MT "flamekit.frame"
#define SAMPLE_MT "flamekit.sample"
#define HOOK_STEP 1000   /* instructions between two hooks, at most */
#define HOOK_BUDGET (128u << 20) /* heap bytes times instructions between two hooks */
#define CONTEXT_MAX 160 /* bytes of a stack quoted in an error */
#define SCAN_BYTES 64   /* bytes read or allocated in C that cost one instruction */
#define INSERT_MAX 4096 /* frames one sample() call may add */

/* One filter instance: owns its lua_State and the strings below. */
struct state {
	const struct fk_host *h;
	lua_State *L;
	char *where;
	char *script;         /* path as given, for messages */
	size_t mem, memlimit;
	const char *memtext;  /* the limit as given ("64M"), for messages */
	int frame_line, sample_line; /* where frame() and sample() are defined */
	long long ilimit, icount;
	size_t abytes;        /* bytes allocated not yet charged (< SCAN_BYTES) */
	int hook_step;        /* the count hook's period now (1 once poisoned) */
	size_t step_mem;      /* the heap size above which hook_step is too long */
	bool hooked;          /* inside lf_call: the count hook is set */
	double tlimit;        /* time-limit in seconds, 0 for none */
	long long cpu0;       /* thread CPU ns at the call's first hook, -1 before */
	long long wall_next;  /* monotonic ns before which the CPU clock is not read */
	int ret_line;         /* frame()'s or sample()'s line around its call */
	int names_ref;        /* registry: the set of names given to the engine */
	size_t inserted;      /* frames s:insert added in this sample() call */
	bool over_mem, over_instr;
	char mem_where[256];  /* "script.lua:7:" where memory ran out */
	char limit_msg[512];  /* the instruction-limit error, once raised */
	int frame_ref, sample_ref;
	int frame_anchor, sample_anchor; /* registry slots holding the live handles */
	/* scratch for error context */
	char ctx[CONTEXT_MAX + 64];
};

struct frame_ud {
	struct fk_frame_edit *e;
};

struct sample_ud {
	struct fk_sample_edit *e;
};

static inline struct state *state_of(lua_State *L)
{
	return *(struct state **)lua_getextraspace(L);
}


/* sandbox.c */
/* The memory-capped allocator (ud is the struct state). */
void *lf_l_alloc(void *ud, void *ptr, size_t osize, size_t nsize);
/* "64M" -> bytes; -1 when not a size. */
int lf_parse_size(const char *t, size_t *out);
/* Report a failed call once ("script.lua:LINE: message" + context) and
 * return its status (FK_ERR_SCRIPT, FK_ERR_LIMIT or FK_ERR_NOMEM). */
int lf_report(struct state *s, int status, const char *context);
/* Call the function below nargs arguments with a fresh instruction
 * budget; 0, or negative with the Lua status in *status. */
int lf_call(struct state *s, int nargs, int nres, int *status);
/* Run fn(arg) under lua_pcall, disarming the handles afterwards. */
int lf_protect(struct state *s, lua_CFunction fn, void *arg);
/* Lua cuts chunk names to LUA_IDSIZE: put the script's whole path back
 * into msg[0..len), written to out. */
void lf_full_src(const struct state *s, const char *msg, size_t len, char *out, size_t cap);
/* lua_CFunction: open the trimmed libraries and the handles' metatables. */
int lf_open_sandbox(lua_State *L);
/* "script.lua:LINE:" of the innermost script line running, into buf. */
void lf_where(lua_State *L, char *buf, size_t cap);
/* A limit was hit: the hook fires at every instruction from now on. */
void lf_poison(struct state *s, lua_State *L);

/* costs.c */
/* Charge `steps` instructions to the running call, or raise the limit
 * error, "(WHAT)" saying why the call is dear. */
void lf_charge(lua_State *L, double steps, const char *fmt, ...) FK_PRINTF(3, 4);
/* Put the charged wrappers in place of the string, utf8 and table
 * functions that loop in C, and of tonumber. */
void lf_wrap_costly(lua_State *L);
/* A message handler's msg "bad argument #N to '?'" from a function behind
 * a charged wrapper: push it with the function's name and return 1, or
 * return 0 (nothing pushed). */
int lf_fix_argerror(lua_State *L, const char *msg);

/* handles.c */
void lf_handles_register(lua_State *L);
/* Call frame(f) / sample(s) with a fresh handle; run under lf_protect. */
int lf_frame_body(struct state *s, struct fk_frame_edit *e);
int lf_sample_body(struct state *s, struct fk_sample_edit *e);

#endif
