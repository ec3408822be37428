/*
 * The lua filter's sandbox: Lua's base, string, table, math and utf8
 * libraries without load, loadfile, dofile, collectgarbage and
 * string.dump, in the style of Lua's own linit.c; a memory-capped
 * allocator, an instruction-count hook (and costs charged for the library
 * calls that loop in C, costs.c); and the protected calls that report a
 * script's failure once.
 *
 * A limit, once hit, poisons the state (lf_poison): the hook fires at
 * every instruction from then on and raises the limit error again, the
 * script's own message handlers (xpcall) no longer run, and the call fails
 * even if the script caught the error.  Lua runs a message handler for an
 * error raised inside a hook with hooks off, so an xpcall handler that
 * loops would otherwise escape the limit for good.
 *
 * Some single instructions cost time that grows with the data and that
 * no charge can see: == and < on two long strings (a memcmp or strcoll of
 * the whole string: 1,000 comparisons of two 16 MB strings take a second),
 * a long string key looked up through an equal one, f(...) passing on a
 * million varargs, next() over an empty array part.  The count hook
 * also reads the clock (time-limit: CPU seconds of the thread per call),
 * and it fires more often as the heap grows: every such instruction reads
 * at most the heap, so HOOK_BUDGET / heap instructions between two hooks
 * bound the work between two looks at the clock (about 1 s at worst,
 * strcoll on strings of NUL bytes; about 5 ms for memcmp), while a script
 * with an 8 MB heap runs its instructions about a third slower (a hook
 * every 16).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include "luafilter.h"

/* ---- limits ---------------------------------------------------------- */

#ifndef CLOCK_MONOTONIC_COARSE /* Linux's; elsewhere the plain one */
#define CLOCK_MONOTONIC_COARSE CLOCK_MONOTONIC
#endif

void lf_where(lua_State *L, char *buf, size_t cap)
{
	struct state *s = state_of(L);
	lua_Debug ar;
	buf[0] = '\0';
	for (int level = 0; lua_getstack(L, level, &ar); level++) {
		if (lua_getinfo(L, "Sl", &ar) && ar.currentline > 0) {
			/* the whole path, not short_src's 60 bytes */
			snprintf(buf, cap, "%s:%d:", ar.source[0] == '@' ? ar.source + 1 : ar.short_src,
			         ar.currentline);
			return;
		}
	}
	if (s && s->ret_line > 0) /* around the call: frame() or sample() */
		snprintf(buf, cap, "%s:%d:", s->script, s->ret_line);
}

static void l_hook(lua_State *L, lua_Debug *ar);

static void set_hook(struct state *s, lua_State *L, int step)
{
	s->hook_step = step;
	s->step_mem = step > 1 ? HOOK_BUDGET / (unsigned)step : (size_t)-1;
	lua_sethook(L, l_hook, LUA_MASKCOUNT, step);
}

void lf_poison(struct state *s, lua_State *L)
{
	if (!s->over_mem)
		s->over_instr = true;
	set_hook(s, L, 1);
}

/* The hook period for a heap of mem bytes: HOOK_BUDGET / mem, 1 to HOOK_STEP. */
static int step_for(size_t mem)
{
	size_t st = HOOK_BUDGET / (mem ? mem : 1);
	return st > HOOK_STEP ? HOOK_STEP : st < 1 ? 1 : (int)st;
}

static long long clock_ns(clockid_t c)
{
	struct timespec t;
	if (clock_gettime(c, &t) < 0)
		return 0;
	return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* Has the running call used more than time-limit seconds of CPU?  The
 * thread's CPU clock is a system call (about 1 us); the coarse monotonic
 * clock is not (7 ns, a few ms fine), and CPU time never runs faster than
 * it: the CPU clock is read only once the wall clock says the limit may be
 * near.  A call is timed from its first hook: a call that ends before it
 * costs nothing. */
static bool time_over(struct state *s)
{
	long long lim = (long long)(s->tlimit * 1e9), wall, used;

	if (s->tlimit <= 0)
		return false;
	wall = clock_ns(CLOCK_MONOTONIC_COARSE);
	if (s->cpu0 < 0) {
		s->cpu0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
		s->wall_next = wall + lim;
		return false;
	}
	if (wall < s->wall_next)
		return false;
	used = clock_ns(CLOCK_THREAD_CPUTIME_ID) - s->cpu0;
	if (used >= lim)
		return true;
	s->wall_next = wall + (lim - used);
	return false;
}

void *lf_l_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
	struct state *s = ud;
	size_t old = ptr ? osize : 0;

	if (nsize == 0) {
		s->h->free(ptr);
		s->mem -= old;
		return NULL;
	}
	if (nsize > old && (s->over_mem || s->mem + (nsize - old) > s->memlimit)) {
		if (!s->over_mem && s->L)
			lf_where(s->L, s->mem_where, sizeof s->mem_where);
		s->over_mem = true;
		if (s->L)
			lf_poison(s, s->L);
		return NULL;
	}
	ptr = s->h->realloc(ptr, nsize);
	if (ptr && nsize > old && s->hooked && s->mem + (nsize - old) > s->step_mem)
		set_hook(s, s->L, step_for(s->mem + (nsize - old))); /* bigger data: look sooner */
	if (ptr && nsize > old) {
		/* copies that allocate (s:upper(), a .. b) cost their bytes */
		s->abytes += nsize - old;
		s->icount += (long long)(s->abytes / SCAN_BYTES);
		s->abytes %= SCAN_BYTES;
	}
	if (ptr)
		s->mem = s->mem - old + nsize;
	return ptr;
}

static void l_hook(lua_State *L, lua_Debug *ar)
{
	struct state *s = state_of(L);
	char w[256];

	(void)ar;
	s->icount += s->hook_step;
	if (s->icount <= s->ilimit && !s->over_mem && !s->over_instr) {
		if (!time_over(s)) {
			if (step_for(s->mem) != s->hook_step)
				set_hook(s, L, step_for(s->mem));
			return;
		}
		lf_where(L, w, sizeof w);
		if (!s->limit_msg[0])
			snprintf(s->limit_msg, sizeof s->limit_msg, "%s time limit (%gs) exceeded", w,
			         s->tlimit);
	}
	/* From now on stop at every instruction: a pcall in the script must
	 * not be able to carry on. */
	lf_poison(s, L);
	lf_where(L, w, sizeof w);
	if (s->over_mem)
		lua_pushfstring(L, "%s memory limit (%s) exceeded", w, s->memtext);
	else if (s->limit_msg[0])
		lua_pushstring(L, s->limit_msg);
	else
		lua_pushfstring(L, "%s instruction limit of %I exceeded (an endless loop?)", w,
		                (lua_Integer)s->ilimit);
	if (!s->over_mem && !s->limit_msg[0])
		snprintf(s->limit_msg, sizeof s->limit_msg, "%s", lua_tostring(L, -1));
	lua_error(L);
}

int lf_parse_size(const char *t, size_t *out)
{
	char *end;
	unsigned long long v;

	if (!t || !*t)
		return -1;
	errno = 0;
	v = strtoull(t, &end, 10);
	if (errno || end == t)
		return -1;
	switch (*end) {
	case 'k': case 'K': v <<= 10; end++; break;
	case 'm': case 'M': v <<= 20; end++; break;
	case 'g': case 'G': v <<= 30; end++; break;
	}
	if (*end == 'i' && end[1] == 'B')
		end += 2;
	else if (*end == 'B')
		end++;
	if (*end)
		return -1;
	*out = (size_t)v;
	return 0;
}


/* ---- calling the script -------------------------------------------- */

/* Does the first line of msg carry a "chunk:LINE:" position? */
static bool has_position(const char *msg)
{
	for (const char *c = msg; *c && *c != '\n'; c++) {
		const char *d = c + 1;
		if (*c != ':')
			continue;
		while (*d >= '0' && *d <= '9')
			d++;
		if (d > c + 1 && *d == ':')
			return true;
	}
	return false;
}

static int l_msgh(lua_State *L)
{
	const char *msg = lua_tostring(L, 1);
	if (msg && lf_fix_argerror(L, msg))
		msg = lua_tostring(L, -1);
	if (msg && !has_position(msg)) {
		/* raised inside a C function ("C stack overflow" from string.gsub,
		 * error(msg, 0)): the innermost script line is the place to blame */
		char w[256];
		lf_where(L, w, sizeof w);
		if (w[0])
			msg = lua_pushfstring(L, "%s %s", w, msg);
	}
	if (!msg) {
		struct state *s = state_of(L);
		char w[256];
		lf_where(L, w, sizeof w);
		/* past a limit no script code runs here (lf_report words it) */
		if (!s->over_instr && !s->over_mem && luaL_callmeta(L, 1, "__tostring") &&
		    lua_type(L, -1) == LUA_TSTRING)
			msg = lua_pushfstring(L, "%s %s", w, lua_tostring(L, -1));
		else
			msg = lua_pushfstring(L, "%s error raised with a %s value, not a message", w,
			                      luaL_typename(L, 1));
	}
	luaL_traceback(L, L, msg, 1);
	return 1;
}

/* Lua cuts chunk names to LUA_IDSIZE ("...end/of/the/path/script.lua:3:
 * msg"): put the script's whole path back. */
void lf_full_src(const struct state *s, const char *msg, size_t len, char *out, size_t cap)
{
	const char *colon;
	size_t sl = strlen(s->script), tl;

	if (len > 3 && strncmp(msg, "...", 3) == 0 && (colon = memchr(msg + 3, ':', len - 3)) != NULL) {
		tl = (size_t)(colon - (msg + 3));
		if (tl <= sl && memcmp(s->script + sl - tl, msg + 3, tl) == 0) {
			snprintf(out, cap, "%s%.*s", s->script, (int)(len - (size_t)(colon - msg)), colon);
			return;
		}
	}
	snprintf(out, cap, "%.*s", (int)len, msg);
}

/* Report the error on top of the stack (from l_msgh) and pop it. */
int lf_report(struct state *s, int status, const char *context)
{
	/* only a string: converting a number would allocate */
	const char *msg = lua_type(s->L, -1) == LUA_TSTRING ? lua_tostring(s->L, -1) : NULL;
	const char *nl;
	char first[1024];

	if (s->over_mem) {
		snprintf(first, sizeof first, "%s%smemory limit (%s) exceeded",
		         s->mem_where[0] ? s->mem_where : s->script, s->mem_where[0] ? " " : ": ",
		         s->memtext);
		msg = NULL;
	} else if (s->over_instr && s->limit_msg[0]) {
		/* the first report of the limit, wherever the script caught it */
		snprintf(first, sizeof first, "%s", s->limit_msg);
		msg = NULL;
	} else if (status == LUA_ERRMEM) {
		/* the host allocator failed, not the script's limit */
		snprintf(first, sizeof first, "%s: out of memory", s->where);
		msg = NULL;
	} else {
		if (!msg)
			msg = "unknown error";
		nl = strchr(msg, '\n');
		lf_full_src(s, msg, nl ? (size_t)(nl - msg) : strlen(msg), first, sizeof first);
	}
	s->h->log(FK_LOG_ERROR, "%s%s", first, context ? context : "");
	if (msg && (nl = strchr(msg, '\n')) != NULL)
		s->h->log(FK_LOG_INFO, "%s", nl + 1);
	lua_pop(s->L, 1);
	if (s->over_mem || s->over_instr)
		return FK_ERR_LIMIT;
	return status == LUA_ERRMEM ? FK_ERR_NOMEM : FK_ERR_SCRIPT;
}

/* Call the function below nargs arguments with a fresh instruction budget;
 * leaves nres results on success. */
int lf_call(struct state *s, int nargs, int nres, int *status)
{
	lua_State *L = s->L;
	int base = lua_gettop(L) - nargs, rc;

	s->icount = 0;
	s->cpu0 = -1;
	set_hook(s, L, s->over_instr || s->over_mem ? 1 : step_for(s->mem));
	s->hooked = true;
	lua_pushcfunction(L, l_msgh);
	lua_insert(L, base);
	rc = lua_pcall(L, nargs, nres, base);
	lua_remove(L, base);
	s->hooked = false;
	lua_sethook(L, NULL, 0, 0);
	if (rc == LUA_OK && (s->over_mem || s->over_instr)) {
		/* the script caught the limit error itself: fail anyway */
		lua_pop(L, nres);
		lua_pushboolean(L, 0); /* lf_report() words the limit itself */
		rc = LUA_ERRRUN;
	}
	*status = rc;
	return rc == LUA_OK ? 0 : -1;
}


/* ---- the sandbox ------------------------------------------------------------ */

static int l_print(lua_State *L)
{
	struct state *s = state_of(L);
	luaL_Buffer b;
	int n = lua_gettop(L);

	luaL_buffinit(L, &b);
	for (int i = 1; i <= n; i++) {
		if (i > 1)
			luaL_addchar(&b, '\t');
		luaL_tolstring(L, i, NULL);
		luaL_addvalue(&b);
	}
	luaL_pushresult(&b);
	s->h->log(FK_LOG_WARN, "%s: %s", s->script, lua_tostring(L, -1));
	return 0;
}

/* xpcall()'s message handler, through this guard: Lua calls it for an
 * error raised in the instruction hook with hooks off, where nothing would
 * stop a handler that loops.  Once a limit is hit the handler is not
 * called, and the error goes on as it is. */
static int l_xpcall_guard(lua_State *L)
{
	struct state *s = state_of(L);

	if (s->over_instr || s->over_mem)
		return lua_gettop(L) ? 1 : 0;
	lua_pushvalue(L, lua_upvalueindex(1));
	lua_insert(L, 1);
	lua_call(L, lua_gettop(L) - 1, 1);
	return 1;
}

/* xpcall(f, msgh, ...): Lua's, with msgh behind l_xpcall_guard.  No
 * coroutines in the sandbox, so no continuation. */
static int l_xpcall(lua_State *L)
{
	int n = lua_gettop(L), status;

	luaL_checktype(L, 2, LUA_TFUNCTION);
	lua_pushvalue(L, 2);
	lua_pushcclosure(L, l_xpcall_guard, 1);
	lua_replace(L, 2);      /* f guard args... */
	lua_pushvalue(L, 1);
	lua_insert(L, 3);       /* f guard f args... */
	status = lua_pcall(L, n - 2, LUA_MULTRET, 2);
	lua_pushboolean(L, status == LUA_OK);
	lua_replace(L, 1);      /* ok guard results... */
	lua_remove(L, 2);
	return lua_gettop(L);
}

/* setmetatable() without __gc: Lua runs finalizers with debug hooks off,
 * so a __gc function would escape the instruction limit (an endless loop
 * in one hung flamekit), and it would run at any allocation of a later
 * call.  An object is only marked for finalization when its metatable has
 * __gc at the time it is set, so checking here is enough. */
static int l_setmetatable(lua_State *L)
{
	int t = lua_type(L, 2);

	/* the checks of the original, so that messages name 'setmetatable' */
	luaL_checktype(L, 1, LUA_TTABLE);
	luaL_argexpected(L, t == LUA_TNIL || t == LUA_TTABLE, 2, "nil or table");
	lua_pushliteral(L, "__gc");
	if (lua_istable(L, 2) && lua_rawget(L, 2) != LUA_TNIL)
		return luaL_error(L, "setmetatable: __gc metamethods are not allowed in filter "
		                  "scripts (finalizers run outside the instruction limit)");
	lua_settop(L, 2);
	lua_pushvalue(L, lua_upvalueindex(1));
	lua_insert(L, 1);
	lua_call(L, 2, 1);
	return 1;
}

int lf_open_sandbox(lua_State *L)
{
	static const luaL_Reg libs[] = {
		{ LUA_GNAME, luaopen_base }, { LUA_STRLIBNAME, luaopen_string },
		{ LUA_TABLIBNAME, luaopen_table }, { LUA_MATHLIBNAME, luaopen_math },
		{ LUA_UTF8LIBNAME, luaopen_utf8 }, { NULL, NULL },
	};
	static const char *const unsafe[] = { "dofile", "loadfile", "load", "collectgarbage", NULL };

	for (const luaL_Reg *l = libs; l->func; l++) {
		luaL_requiref(L, l->name, l->func, 1);
		lua_pop(L, 1);
	}
	for (const char *const *u = unsafe; *u; u++) {
		lua_pushnil(L);
		lua_setglobal(L, *u);
	}
	lua_pushcfunction(L, l_print);
	lua_setglobal(L, "print");
	lua_getglobal(L, LUA_GNAME);
	lua_getfield(L, -1, "setmetatable");
	lua_pushcclosure(L, l_setmetatable, 1);
	lua_setfield(L, -2, "setmetatable");
	lua_pop(L, 1);
	lua_pushcfunction(L, l_xpcall);
	lua_setglobal(L, "xpcall");
	lua_getglobal(L, LUA_STRLIBNAME);
	lua_pushnil(L);
	lua_setfield(L, -2, "dump");
	lua_pop(L, 1);
	lf_wrap_costly(L);
	/* math.random is seeded from the clock: make runs repeatable. */
	lua_getglobal(L, LUA_MATHLIBNAME);
	lua_getfield(L, -1, "randomseed");
	lua_pushinteger(L, 0);
	lua_call(L, 1, 0);
	lua_pop(L, 1);

	lf_handles_register(L);
	return 0;
}

/*
 * Every Lua call that can allocate (and so raise a memory error) must run
 * under lua_pcall: outside one, Lua calls abort().  lf_protect() runs fn with
 * the light userdata arg that way; the handles a call made are disarmed
 * whatever happened.  Returns 0, or FK_ERR_NOMEM / FK_ERR_LIMIT (reported)
 * when fn was cut short by a memory error.
 */
static void disarm(struct state *s)
{
	lua_State *L = s->L;

	/* the anchors keep the last handles alive: no allocation, no GC here */
	if (s->frame_anchor > 0) {
		if (lua_rawgeti(L, LUA_REGISTRYINDEX, s->frame_anchor) == LUA_TUSERDATA)
			((struct frame_ud *)lua_touserdata(L, -1))->e = NULL;
		lua_pop(L, 1);
	}
	if (s->sample_anchor > 0) {
		if (lua_rawgeti(L, LUA_REGISTRYINDEX, s->sample_anchor) == LUA_TUSERDATA)
			((struct sample_ud *)lua_touserdata(L, -1))->e = NULL;
		lua_pop(L, 1);
	}
}

int lf_protect(struct state *s, lua_CFunction fn, void *arg)
{
	lua_State *L = s->L;
	int top = lua_gettop(L), status;

	lua_pushcfunction(L, fn);
	lua_pushlightuserdata(L, arg);
	status = lua_pcall(L, 1, 0, 0);
	s->hooked = false;
	lua_sethook(L, NULL, 0, 0);
	disarm(s);
	s->ret_line = 0;
	if (status == LUA_OK)
		return 0;
	status = lf_report(s, status, "");
	lua_settop(L, top);
	return status;
}

