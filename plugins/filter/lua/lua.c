/*
 * Filter plugin "lua": runs a Lua 5.4 script's frame() and sample()
 * functions (the README is the script API's reference).
 *
 * Each filter instance owns one lua_State, opened with a trimmed library
 * list (base without load/loadfile/dofile/collectgarbage, string without
 * dump, table, math, utf8), a memory-capped allocator and an
 * instruction-count hook.  Scripts and args are loaded as text only.
 * Frames and samples reach the script as userdata with a locked metatable;
 * each handle is made for one call and disarmed when the call returns, so
 * nothing a script keeps can reach engine memory later.
 *
 * A script error, a runaway loop or a memory bomb fails the job with
 * "script.lua:LINE: message (in frame() for frame "x")": a broken filter
 * must never produce a silently wrong graph.  Once a limit is hit, the hook
 * fires on every instruction so that pcall() in the script cannot swallow
 * it, and the call fails even if the script caught the error.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include <flamekit/plugin.h>

#define FRAME_MT "flamekit.frame"
#define SAMPLE_MT "flamekit.sample"
#define HOOK_STEP 1000
#define CONTEXT_MAX 160 /* bytes of a stack quoted in an error */

struct opts {
	const char *script;
	const char *args;
	const char *memory_limit;
	long long instruction_limit;
};

struct state {
	const struct fk_host *h;
	lua_State *L;
	char *where;
	char *script;         /* path as given, for messages */
	size_t mem, memlimit;
	const char *memtext;  /* the limit as given ("64M"), for messages */
	int frame_line, sample_line; /* where frame() and sample() are defined */
	long long ilimit, icount;
	int step;
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

static struct state *state_of(lua_State *L)
{
	return *(struct state **)lua_getextraspace(L);
}

/* ---- limits ---------------------------------------------------------- */

static void where_now(lua_State *L, char *buf, size_t cap)
{
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
}

static void *l_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
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
			where_now(s->L, s->mem_where, sizeof s->mem_where);
		s->over_mem = true;
		if (s->L)
			lua_sethook(s->L, lua_gethook(s->L), LUA_MASKCOUNT, 1);
		return NULL;
	}
	ptr = s->h->realloc(ptr, nsize);
	if (ptr)
		s->mem = s->mem - old + nsize;
	return ptr;
}

static void l_hook(lua_State *L, lua_Debug *ar)
{
	struct state *s = state_of(L);
	char w[256];

	(void)ar;
	s->icount += s->step;
	if (s->icount <= s->ilimit && !s->over_mem && !s->over_instr)
		return;
	if (!s->over_mem)
		s->over_instr = true;
	/* From now on stop at every instruction: a pcall in the script must
	 * not be able to carry on. */
	lua_sethook(L, l_hook, LUA_MASKCOUNT, 1);
	where_now(L, w, sizeof w);
	if (s->over_mem)
		lua_pushfstring(L, "%s memory limit (%s) exceeded", w, s->memtext);
	else
		lua_pushfstring(L, "%s instruction limit of %I exceeded (an endless loop?)", w,
		                (lua_Integer)s->ilimit);
	if (!s->over_mem && !s->limit_msg[0])
		snprintf(s->limit_msg, sizeof s->limit_msg, "%s", lua_tostring(L, -1));
	lua_error(L);
}

static int parse_size(const char *t, size_t *out)
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
	if (msg && !has_position(msg)) {
		/* raised inside a C function ("C stack overflow" from string.gsub,
		 * error(msg, 0)): the innermost script line is the place to blame */
		char w[256];
		where_now(L, w, sizeof w);
		if (w[0])
			msg = lua_pushfstring(L, "%s %s", w, msg);
	}
	if (!msg) {
		char w[256];
		where_now(L, w, sizeof w);
		if (luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING)
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
static void full_src(const struct state *s, const char *msg, size_t len, char *out, size_t cap)
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
static int report(struct state *s, int status, const char *context)
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
		full_src(s, msg, nl ? (size_t)(nl - msg) : strlen(msg), first, sizeof first);
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
static int call(struct state *s, int nargs, int nres, int *status)
{
	lua_State *L = s->L;
	int base = lua_gettop(L) - nargs, rc;

	s->icount = 0;
	lua_sethook(L, l_hook, LUA_MASKCOUNT, s->step);
	lua_pushcfunction(L, l_msgh);
	lua_insert(L, base);
	rc = lua_pcall(L, nargs, nres, base);
	lua_remove(L, base);
	lua_sethook(L, NULL, 0, 0);
	if (rc == LUA_OK && (s->over_mem || s->over_instr)) {
		/* the script caught the limit error itself: fail anyway */
		lua_pop(L, nres);
		lua_pushboolean(L, 0); /* report() words the limit itself */
		rc = LUA_ERRRUN;
	}
	*status = rc;
	return rc == LUA_OK ? 0 : -1;
}

/* ---- frame handles ---------------------------------------------------- */

static const char *kind_name(int annot)
{
	switch (annot) {
	case FK_ANNOT_KERNEL: return "kernel";
	case FK_ANNOT_JIT: return "jit";
	case FK_ANNOT_INLINE: return "inline";
	case FK_ANNOT_WAKER: return "waker";
	}
	return "none";
}

static int check_colour(lua_State *L, int arg)
{
	size_t n;
	const char *c = luaL_checklstring(L, arg, &n);
	bool ok = n > 0;

	if (c[0] == '#') {
		ok = n == 7;
		for (size_t i = 1; ok && i < n; i++)
			ok = strchr("0123456789abcdefABCDEF", c[i]) != NULL && c[i];
	} else {
		for (size_t i = 0; ok && i < n; i++)
			ok = (c[i] >= 'a' && c[i] <= 'z') || (i > 0 && ((c[i] >= '0' && c[i] <= '9') ||
			                                                 c[i] == '-' || c[i] == '_'));
	}
	if (!ok)
		return luaL_error(L, "bad colour \"%s\": give \"#rrggbb\" or a palette name such as \"hot\"", c);
	return 0;
}

static struct fk_frame_edit *frame_check(lua_State *L)
{
	struct frame_ud *u = luaL_checkudata(L, 1, FRAME_MT);
	if (!u->e)
		luaL_error(L, "a frame handle was used after its frame() call returned");
	return u->e;
}

static int f_rename(lua_State *L)
{
	struct fk_frame_edit *e = frame_check(L);
	size_t n;
	const char *name = luaL_checklstring(L, 2, &n);
	if (state_of(L)->h->fe_rename(e, name, n) < 0)
		return luaL_error(L, "not enough memory");
	return 0;
}

static int f_drop(lua_State *L)
{
	state_of(L)->h->fe_drop(frame_check(L));
	return 0;
}

static int f_colour(lua_State *L)
{
	struct fk_frame_edit *e = frame_check(L);
	check_colour(L, 2);
	if (state_of(L)->h->fe_colour(e, lua_tostring(L, 2)) < 0)
		return luaL_error(L, "not enough memory");
	return 0;
}

static int f_index(lua_State *L)
{
	const struct fk_host *h = state_of(L)->h;
	struct fk_frame_edit *e = frame_check(L);
	const char *k = luaL_checkstring(L, 2);
	const char *v;
	size_t n;

	if (strcmp(k, "name") == 0) {
		v = h->fe_name(e, &n);
		lua_pushlstring(L, v, n);
	} else if (strcmp(k, "module") == 0) {
		v = h->fe_module(e, &n);
		if (v)
			lua_pushlstring(L, v, n);
		else
			lua_pushnil(L);
	} else if (strcmp(k, "kind") == 0) {
		lua_pushstring(L, kind_name(h->fe_annot(e)));
	} else if (strcmp(k, "rename") == 0) {
		lua_pushcfunction(L, f_rename);
	} else if (strcmp(k, "drop") == 0) {
		lua_pushcfunction(L, f_drop);
	} else if (strcmp(k, "colour") == 0 || strcmp(k, "color") == 0) {
		lua_pushcfunction(L, f_colour);
	} else {
		return luaL_error(L, "a frame has no field '%s' (it has name, module, kind, "
		                  "rename, drop, colour)", k);
	}
	return 1;
}

static int f_newindex(lua_State *L)
{
	frame_check(L);
	return luaL_error(L, "frame fields are read-only: use f:rename(), f:drop() or f:colour()");
}

/* ---- sample handles ------------------------------------------------------ */

static struct fk_sample_edit *sample_check(lua_State *L)
{
	struct sample_ud *u = luaL_checkudata(L, 1, SAMPLE_MT);
	if (!u->e)
		luaL_error(L, "a sample handle was used after its sample() call returned");
	return u->e;
}

/* Lua index (1 = root, -1 = leaf) at arg -> 0-based; raises when out of
 * range unless `extra` allows one past the end (insert). */
static size_t frame_index(lua_State *L, struct fk_sample_edit *e, int arg, int extra)
{
	const struct fk_host *h = state_of(L)->h;
	lua_Integer n = (lua_Integer)h->se_depth(e), i = luaL_checkinteger(L, arg);

	if (i < 0)
		i += n + 1;
	if (i < 1 || i > n + extra)
		luaL_error(L, "frame index %I out of range (the stack has %I frames)",
		           luaL_checkinteger(L, arg), n);
	return (size_t)(i - 1);
}

static int s_module(lua_State *L)
{
	struct fk_sample_edit *e = sample_check(L);
	size_t n, i = frame_index(L, e, 2, 0);
	const char *m = state_of(L)->h->se_frame_module(e, i, &n);
	if (m)
		lua_pushlstring(L, m, n);
	else
		lua_pushnil(L);
	return 1;
}

static int s_kind(lua_State *L)
{
	struct fk_sample_edit *e = sample_check(L);
	size_t i = frame_index(L, e, 2, 0);
	lua_pushstring(L, kind_name(state_of(L)->h->se_frame_annot(e, i)));
	return 1;
}

static int s_rename(lua_State *L)
{
	struct fk_sample_edit *e = sample_check(L);
	size_t n, i = frame_index(L, e, 2, 0);
	const char *name = luaL_checklstring(L, 3, &n);
	if (state_of(L)->h->se_rename(e, i, name, n) < 0)
		return luaL_error(L, "not enough memory");
	return 0;
}

static int s_colour(lua_State *L)
{
	struct fk_sample_edit *e = sample_check(L);
	size_t i = frame_index(L, e, 2, 0);
	check_colour(L, 3);
	if (state_of(L)->h->se_colour(e, i, lua_tostring(L, 3)) < 0)
		return luaL_error(L, "not enough memory");
	return 0;
}

static int s_insert(lua_State *L)
{
	struct fk_sample_edit *e = sample_check(L);
	size_t n, i = frame_index(L, e, 2, 1);
	const char *name = luaL_checklstring(L, 3, &n);
	if (state_of(L)->h->se_insert(e, i, name, n) < 0)
		return luaL_error(L, "not enough memory");
	return 0;
}

static int s_remove(lua_State *L)
{
	struct fk_sample_edit *e = sample_check(L);
	size_t i = frame_index(L, e, 2, 0), j = i;
	if (!lua_isnoneornil(L, 3))
		j = frame_index(L, e, 3, 0);
	if (j >= i)
		state_of(L)->h->se_remove_range(e, i, j - i + 1);
	return 0;
}

static int s_cut(lua_State *L)
{
	struct fk_sample_edit *e = sample_check(L);
	lua_Integer n = luaL_checkinteger(L, 2);
	if (n < 0)
		return luaL_error(L, "cut(%I): the number of frames to keep cannot be negative", n);
	state_of(L)->h->se_truncate(e, (size_t)n);
	return 0;
}

static int s_drop(lua_State *L)
{
	state_of(L)->h->se_drop(sample_check(L));
	return 0;
}

static int s_find(lua_State *L)
{
	const struct fk_host *h = state_of(L)->h;
	struct fk_sample_edit *e = sample_check(L);
	size_t len, n = h->se_depth(e), i = 0;
	const char *want = luaL_checklstring(L, 2, &len);

	if (!lua_isnoneornil(L, 3))
		i = frame_index(L, e, 3, 1);
	for (; i < n; i++) {
		size_t l;
		const char *name = h->se_frame_name(e, i, &l);
		if (l == len && memcmp(name, want, len) == 0) {
			lua_pushinteger(L, (lua_Integer)i + 1);
			return 1;
		}
	}
	lua_pushnil(L);
	return 1;
}

static int s_len(lua_State *L)
{
	struct fk_sample_edit *e = sample_check(L);
	lua_pushinteger(L, (lua_Integer)state_of(L)->h->se_depth(e));
	return 1;
}

static int s_index(lua_State *L)
{
	const struct fk_host *h = state_of(L)->h;
	struct fk_sample_edit *e = sample_check(L);
	const struct fk_logged_sample *m;
	const char *k, *v;
	size_t n;

	if (lua_type(L, 2) == LUA_TNUMBER) {
		lua_Integer d = (lua_Integer)h->se_depth(e), i = luaL_checkinteger(L, 2);
		if (i < 0)
			i += d + 1;
		if (i < 1 || i > d) {
			lua_pushnil(L);
			return 1;
		}
		v = h->se_frame_name(e, (size_t)(i - 1), &n);
		lua_pushlstring(L, v, n);
		return 1;
	}
	k = luaL_checkstring(L, 2);
	m = h->se_meta(e);
	if (strcmp(k, "weight") == 0) {
		lua_pushnumber(L, h->se_weight(e));
	} else if (strcmp(k, "pid") == 0) {
		if (m && (m->flags & FK_SAMPLE_PID))
			lua_pushinteger(L, m->pid);
		else
			lua_pushnil(L);
	} else if (strcmp(k, "tid") == 0) {
		if (m && (m->flags & FK_SAMPLE_TID))
			lua_pushinteger(L, m->tid);
		else
			lua_pushnil(L);
	} else if (strcmp(k, "time") == 0) {
		if (m && (m->flags & FK_SAMPLE_TIME))
			lua_pushnumber(L, (lua_Number)m->time_ns / 1e9);
		else
			lua_pushnil(L);
	} else if (strcmp(k, "comm") == 0) {
		v = h->se_comm(e, &n);
		if (v)
			lua_pushlstring(L, v, n);
		else
			lua_pushnil(L);
	} else {
		static const struct { const char *name; lua_CFunction fn; } methods[] = {
			{ "module", s_module }, { "kind", s_kind }, { "rename", s_rename },
			{ "colour", s_colour }, { "color", s_colour }, { "insert", s_insert },
			{ "remove", s_remove }, { "cut", s_cut }, { "drop", s_drop },
			{ "find", s_find },
		};
		for (size_t i = 0; i < sizeof methods / sizeof *methods; i++)
			if (strcmp(k, methods[i].name) == 0) {
				lua_pushcfunction(L, methods[i].fn);
				return 1;
			}
		return luaL_error(L, "a sample has no field '%s' (it has weight, pid, tid, comm, time, "
		                  "module, kind, rename, colour, insert, remove, cut, drop, find)", k);
	}
	return 1;
}

static int s_newindex(lua_State *L)
{
	struct fk_sample_edit *e = sample_check(L);
	const char *k = luaL_checkstring(L, 2);
	lua_Number w;

	if (strcmp(k, "weight") != 0)
		return luaL_error(L, "only a sample's weight can be set, not '%s'", k);
	w = luaL_checknumber(L, 3);
	if (!(w >= 0) || w > 1e300)
		return luaL_error(L, "a weight must be a finite number >= 0, not %f", w);
	state_of(L)->h->se_set_weight(e, w);
	return 0;
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

/*
 * string.find, match, gmatch and gsub run their whole search in C, where
 * the instruction hook cannot stop them, and Lua patterns backtrack: a
 * 100 KB subject and ".-b" take minutes.  So each call is charged, before
 * it runs, an upper bound of its matcher steps (PATTERN_STEPS to an
 * instruction): (n + 1) start positions, times (n + 1) for each
 * repetition (* + - %b) or back-reference, times the pattern's length, for
 * an n-byte subject.  A call the budget cannot pay fails as an endless
 * loop would; on frame names (tens of bytes) the charge is negligible.
 */
#define PATTERN_STEPS 16

enum pattern_fn { PAT_FIND, PAT_MATCH, PAT_GMATCH, PAT_GSUB };
static const char *const pattern_fn_name[] = { "find", "match", "gmatch", "gsub" };

static double pattern_cost(int fn, size_t n, const char *p, size_t m, bool plain)
{
	double cost = (double)m + 1, span = (double)n + 1;
	bool specials = false;
	size_t i = 0;

	if (!plain)
		for (size_t k = 0; k < m && !specials; k++)
			specials = strchr("^$*+?.([%-", p[k]) != NULL;
	if (plain || (fn == PAT_FIND && !specials))
		return span * cost; /* a plain substring search */
	if (m > 0 && p[0] == '^' && fn != PAT_GMATCH)
		i = 1; /* anchored: one start position */
	else
		cost *= span;
	for (; i < m; i++) {
		if (p[i] == '%' && i + 1 < m) {
			i++;
			if (p[i] == 'b' || (p[i] >= '1' && p[i] <= '9'))
				cost *= span;
			if (p[i] == 'b' || p[i] == 'f')
				i += p[i] == 'b' ? 2 : 0;
		} else if (p[i] == '[') {
			/* a set: its '-' and '*' are not repetitions */
			i++;
			if (i < m && p[i] == '^')
				i++;
			if (i < m && p[i] == ']')
				i++;
			for (; i < m && p[i] != ']'; i++)
				if (p[i] == '%')
					i++;
		} else if (p[i] == '*' || p[i] == '+' || p[i] == '-') {
			cost *= span;
		}
		if (cost > 1e30)
			break;
	}
	return cost;
}

static int l_pattern(lua_State *L)
{
	struct state *s = state_of(L);
	int fn = (int)lua_tointeger(L, lua_upvalueindex(2));
	size_t n, m;
	const char *p;
	double cost, steps;

	luaL_checklstring(L, 1, &n);
	p = luaL_checklstring(L, 2, &m);
	cost = pattern_cost(fn, n, p, m, fn == PAT_FIND && lua_toboolean(L, 4));
	steps = cost / PATTERN_STEPS;
	if (steps > (double)(s->ilimit - s->icount)) {
		char w[256];
		where_now(L, w, sizeof w);
		s->over_instr = true;
		lua_sethook(L, l_hook, LUA_MASKCOUNT, 1);
		snprintf(s->limit_msg, sizeof s->limit_msg, "%s instruction limit of %lld exceeded "
		         "(string.%s of a %zu-byte string may take %.3g pattern steps)", w,
		         s->ilimit, pattern_fn_name[fn], n, cost);
		lua_pushstring(L, s->limit_msg);
		return lua_error(L);
	}
	s->icount += (long long)steps;
	lua_pushvalue(L, lua_upvalueindex(1));
	lua_insert(L, 1);
	lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
	return lua_gettop(L);
}

static int open_sandbox(lua_State *L)
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
	lua_getglobal(L, LUA_STRLIBNAME);
	lua_pushnil(L);
	lua_setfield(L, -2, "dump");
	for (int fn = PAT_FIND; fn <= PAT_GSUB; fn++) {
		/* the string table is also the strings' metatable __index */
		lua_getfield(L, -1, pattern_fn_name[fn]);
		lua_pushinteger(L, fn);
		lua_pushcclosure(L, l_pattern, 2);
		lua_setfield(L, -2, pattern_fn_name[fn]);
	}
	lua_pop(L, 1);
	/* math.random is seeded from the clock: make runs repeatable. */
	lua_getglobal(L, LUA_MATHLIBNAME);
	lua_getfield(L, -1, "randomseed");
	lua_pushinteger(L, 0);
	lua_call(L, 1, 0);
	lua_pop(L, 1);

	luaL_newmetatable(L, FRAME_MT);
	lua_pushcfunction(L, f_index);
	lua_setfield(L, -2, "__index");
	lua_pushcfunction(L, f_newindex);
	lua_setfield(L, -2, "__newindex");
	lua_pushliteral(L, "locked");
	lua_setfield(L, -2, "__metatable");
	lua_pop(L, 1);
	luaL_newmetatable(L, SAMPLE_MT);
	lua_pushcfunction(L, s_index);
	lua_setfield(L, -2, "__index");
	lua_pushcfunction(L, s_newindex);
	lua_setfield(L, -2, "__newindex");
	lua_pushcfunction(L, s_len);
	lua_setfield(L, -2, "__len");
	lua_pushliteral(L, "locked");
	lua_setfield(L, -2, "__metatable");
	lua_pop(L, 1);
	return 0;
}

/* ---- instance --------------------------------------------------------------- */

static void destroy(void *state)
{
	struct state *s = state;
	if (!s)
		return;
	if (s->L)
		lua_close(s->L);
	s->h->free(s->where);
	s->h->free(s->script);
	s->h->free(s);
}

static char *dup(const struct fk_host *h, const char *t)
{
	size_t n = strlen(t) + 1;
	char *d = h->alloc(n);
	if (d)
		memcpy(d, t, n);
	return d;
}

#define SCRIPT_SIZE_MAX (16 << 20)

static int read_file(const struct fk_host *h, const char *path, char **data, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t n = 0, cap = 0;

	if (!f)
		return -errno;
	for (;;) {
		if (n == cap) {
			char *nb;
			/* A script is text a person wrote; the cap keeps a job that
			 * names /dev/zero or a huge file from eating all memory. */
			if (cap >= SCRIPT_SIZE_MAX) {
				h->free(buf);
				fclose(f);
				return -EFBIG;
			}
			nb = h->realloc(buf, cap = cap ? cap * 2 : 8192);
			if (!nb) {
				h->free(buf);
				fclose(f);
				return -ENOMEM;
			}
			buf = nb;
		}
		size_t r = fread(buf + n, 1, cap - n, f);
		n += r;
		if (r == 0)
			break;
	}
	if (ferror(f)) {
		int e = errno ? errno : EIO;
		h->free(buf);
		fclose(f);
		return -e;
	}
	fclose(f);
	*data = buf;
	*len = n;
	return 0;
}

static int load_args(struct state *s, const char *args)
{
	lua_State *L = s->L;
	int status;

	lua_pushliteral(L, "return ");
	lua_pushstring(L, args);
	lua_concat(L, 2);
	if (luaL_loadbufferx(L, lua_tostring(L, -1), lua_rawlen(L, -1), "=args", "t") != LUA_OK) {
		s->h->log(FK_LOG_ERROR, "%s: bad args (a Lua table constructor is expected): %s",
		          s->where, lua_tostring(L, -1));
		lua_pop(L, 2);
		return FK_ERR_USAGE;
	}
	lua_remove(L, -2);
	/* data only: no globals visible while it is evaluated */
	lua_newtable(L);
	lua_setupvalue(L, -2, 1);
	if (call(s, 0, 1, &status) < 0)
		return report(s, status, " (evaluating args)");
	if (!lua_istable(L, -1)) {
		s->h->log(FK_LOG_ERROR, "%s: args must be a table, not a %s", s->where, luaL_typename(L, -1));
		lua_pop(L, 1);
		return FK_ERR_USAGE;
	}
	lua_setglobal(L, "args");
	return 0;
}

/* Line where the function on top of the stack is defined (0 for C). */
static int defined_at(lua_State *L)
{
	lua_Debug ar;
	lua_pushvalue(L, -1);
	return lua_getinfo(L, ">S", &ar) ? ar.linedefined : 0;
}

/*
 * Every Lua call that can allocate (and so raise a memory error) must run
 * under lua_pcall: outside one, Lua calls abort().  protect() runs fn with
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

static int protect(struct state *s, lua_CFunction fn, void *arg)
{
	lua_State *L = s->L;
	int top = lua_gettop(L), status;

	lua_pushcfunction(L, fn);
	lua_pushlightuserdata(L, arg);
	status = lua_pcall(L, 1, 0, 0);
	lua_sethook(L, NULL, 0, 0);
	disarm(s);
	if (status == LUA_OK)
		return 0;
	status = report(s, status, "");
	lua_settop(L, top);
	return status;
}

struct setup {
	const struct opts *o;
	const char *src;
	size_t srclen;
	const char *chunk;
	int rc;
};

/* Open the sandbox, evaluate args, run the script, find its functions. */
static int setup(struct state *s, const struct setup *u)
{
	const struct fk_host *h = s->h;
	const struct opts *o = u->o;
	const char *src = u->src, *chunk = u->chunk;
	size_t srclen = u->srclen;
	int rc, status;

	/* the registry slots that will anchor each call's handles */
	lua_pushboolean(s->L, 0);
	s->frame_anchor = luaL_ref(s->L, LUA_REGISTRYINDEX);
	lua_pushboolean(s->L, 0);
	s->sample_anchor = luaL_ref(s->L, LUA_REGISTRYINDEX);
	lua_pushcfunction(s->L, open_sandbox);
	if (call(s, 0, 0, &status) < 0) {
		rc = report(s, status, " (opening the libraries)");
		return rc;
	}
	if (o->args && *o->args && (rc = load_args(s, o->args)) < 0)
		return rc;
	/* text only: a precompiled chunk could break the VM's invariants */
	status = luaL_loadbufferx(s->L, src, srclen, chunk, "t");
	if (status != LUA_OK) {
		const char *m = lua_tostring(s->L, -1);
		if (s->over_mem || status == LUA_ERRMEM)
			rc = report(s, status, "");
		else {
			char full[1024];
			full_src(s, m ? m : "?", m ? strlen(m) : 1, full, sizeof full);
			h->log(FK_LOG_ERROR, "%s%s", m && strstr(m, "binary chunk") ? o->script : "",
			       m && strstr(m, "binary chunk") ?
			       ": precompiled (binary) scripts are refused; give the Lua source" : full);
			lua_pop(s->L, 1);
			rc = FK_ERR_USAGE; /* a script that does not compile: the job is invalid */
		}
		return rc;
	}
	if (call(s, 0, 0, &status) < 0) {
		rc = report(s, status, " (running the script's main chunk)");
		return rc;
	}
	lua_getglobal(s->L, "frame");
	if (lua_isfunction(s->L, -1))
		s->frame_line = defined_at(s->L);
	if (lua_isfunction(s->L, -1))
		s->frame_ref = luaL_ref(s->L, LUA_REGISTRYINDEX);
	else if (!lua_isnil(s->L, -1)) {
		h->log(FK_LOG_ERROR, "%s: the global 'frame' must be a function, not a %s", o->script,
		       luaL_typename(s->L, -1));
		rc = FK_ERR_SCRIPT;
		return rc;
	} else
		lua_pop(s->L, 1);
	lua_getglobal(s->L, "sample");
	if (lua_isfunction(s->L, -1))
		s->sample_line = defined_at(s->L);
	if (lua_isfunction(s->L, -1))
		s->sample_ref = luaL_ref(s->L, LUA_REGISTRYINDEX);
	else if (!lua_isnil(s->L, -1)) {
		h->log(FK_LOG_ERROR, "%s: the global 'sample' must be a function, not a %s", o->script,
		       luaL_typename(s->L, -1));
		rc = FK_ERR_SCRIPT;
		return rc;
	} else
		lua_pop(s->L, 1);
	if (s->frame_ref == LUA_NOREF && s->sample_ref == LUA_NOREF) {
		h->log(FK_LOG_ERROR, "%s: the script defines neither frame(f) nor sample(s)", o->script);
		rc = FK_ERR_SCRIPT;
		return rc;
	}
	return 0;
}

static int l_setup(lua_State *L)
{
	struct setup *u = lua_touserdata(L, 1);

	lua_settop(L, 0);
	u->rc = setup(state_of(L), u);
	return 0;
}

static int create(const struct fk_host *h, const void *optp, const char *where, void **out)
{
	const struct opts *o = optp;
	struct state *s;
	char *src = NULL, *chunk = NULL;
	size_t srclen = 0;
	int rc;

	if (h->struct_size < offsetof(struct fk_host, se_remove_range) + sizeof h->se_remove_range) {
		h->log(FK_LOG_ERROR, "%s: the lua filter needs a newer flamekit (host services)", where);
		return FK_ERR_PLUGIN;
	}
	if (!o->script || !*o->script) {
		h->log(FK_LOG_ERROR, "%s: the lua filter needs a script", where);
		return FK_ERR_USAGE;
	}
	s = h->alloc(sizeof *s);
	if (!s)
		return FK_ERR_NOMEM;
	memset(s, 0, sizeof *s);
	s->h = h;
	s->frame_ref = s->sample_ref = LUA_NOREF;
	rc = FK_ERR_NOMEM;
	if (!(s->where = dup(h, where)) || !(s->script = dup(h, o->script)))
		goto fail;
	if (parse_size(o->memory_limit, &s->memlimit) < 0 || s->memlimit < 64 * 1024) {
		h->log(FK_LOG_ERROR, "%s: memory-limit must be a size of at least 64K, like 64M, not \"%s\"",
		       where, o->memory_limit ? o->memory_limit : "");
		rc = FK_ERR_USAGE;
		goto fail;
	}
	if (o->instruction_limit < 1000) {
		h->log(FK_LOG_ERROR, "%s: instruction-limit must be at least 1000, not %lld", where,
		       o->instruction_limit);
		rc = FK_ERR_USAGE;
		goto fail;
	}
	s->memtext = o->memory_limit; /* options live as long as the instance */
	s->ilimit = o->instruction_limit;
	s->step = HOOK_STEP;
	rc = read_file(h, o->script, &src, &srclen);
	if (rc == -ENOMEM) {
		rc = FK_ERR_NOMEM;
		goto fail;
	} else if (rc < 0) {
		h->log(FK_LOG_ERROR, "%s: cannot read the script %s: %s", where, o->script, strerror(-rc));
		rc = FK_ERR_IO;
		goto fail;
	}
	s->L = lua_newstate(l_alloc, s);
	if (!s->L) {
		rc = FK_ERR_NOMEM;
		goto fail;
	}
	*(struct state **)lua_getextraspace(s->L) = s;
	chunk = h->alloc(strlen(o->script) + 2);
	if (!chunk) {
		rc = FK_ERR_NOMEM;
		goto fail;
	}
	chunk[0] = '@';
	strcpy(chunk + 1, o->script);
	{
		struct setup u = { o, src, srclen, chunk, FK_ERR_INTERNAL };
		rc = protect(s, l_setup, &u);
		if (rc == 0)
			rc = u.rc;
		if (rc < 0)
			goto fail;
	}
	h->free(src);
	h->free(chunk);
	*out = s;
	return 0;
fail:
	/* FK_ERR_NOMEM without a message: the engine says "out of memory" */
	h->free(src);
	h->free(chunk);
	destroy(s);
	return rc;
}

static unsigned uses(void *state)
{
	struct state *s = state;
	return (s->frame_ref != LUA_NOREF ? FK_FILTER_USES_FRAME : 0) |
	       (s->sample_ref != LUA_NOREF ? FK_FILTER_USES_SAMPLE : 0);
}

/* Quote a name for an error message: at most CONTEXT_MAX bytes. */
static void quote(char *buf, size_t cap, const char *name, size_t len)
{
	if (len > CONTEXT_MAX)
		snprintf(buf, cap, "%.*s...", CONTEXT_MAX, name);
	else
		snprintf(buf, cap, "%.*s", (int)len, name);
}

static int frame_body(struct state *s, struct fk_frame_edit *e)
{
	lua_State *L = s->L;
	struct frame_ud *u;
	int status, t;

	lua_rawgeti(L, LUA_REGISTRYINDEX, s->frame_ref);
	u = lua_newuserdatauv(L, sizeof *u, 0);
	u->e = e;
	luaL_setmetatable(L, FRAME_MT);
	lua_pushvalue(L, -1);
	lua_rawseti(L, LUA_REGISTRYINDEX, s->frame_anchor); /* disarmed by protect() */
	lua_pushvalue(L, -1);
	lua_insert(L, -3); /* keep the handle below the call to disarm it */
	if (call(s, 1, 1, &status) < 0) {
		char ctx[CONTEXT_MAX + 64], q[CONTEXT_MAX + 8];
		size_t n;
		const char *name = s->h->fe_name(e, &n);
		quote(q, sizeof q, name, n);
		snprintf(ctx, sizeof ctx, " (in frame() for frame \"%s\")", q);
		u->e = NULL;
		status = report(s, status, ctx);
		lua_pop(L, 1);
		return status;
	}
	t = lua_type(L, -1);
	status = 0;
	if (t == LUA_TBOOLEAN && !lua_toboolean(L, -1)) {
		s->h->fe_drop(e);
	} else if (t == LUA_TSTRING) {
		size_t n;
		const char *name = lua_tolstring(L, -1, &n);
		if (s->h->fe_rename(e, name, n) < 0)
			status = FK_ERR_NOMEM;
	} else if (t != LUA_TNIL && t != LUA_TBOOLEAN) {
		size_t n;
		char q[CONTEXT_MAX + 8];
		const char *name = s->h->fe_name(e, &n);
		quote(q, sizeof q, name, n);
		s->h->log(FK_LOG_ERROR, "%s:%d: frame() must return nil, true, false or a new name, not "
		          "a %s (for frame \"%s\")", s->script, s->frame_line, luaL_typename(L, -1), q);
		status = FK_ERR_SCRIPT;
	}
	u->e = NULL;
	lua_pop(L, 2);
	return status;
}

/* "a;b;c" of the sample being edited, cut to CONTEXT_MAX bytes. */
static void stack_text(struct state *s, struct fk_sample_edit *e, char *buf, size_t cap)
{
	size_t d = s->h->se_depth(e), o = 0;
	for (size_t i = 0; i < d && o + 4 < cap; i++) {
		size_t n;
		const char *name = s->h->se_frame_name(e, i, &n);
		if (i && o + 1 < cap)
			buf[o++] = ';';
		if (n > cap - o - 4)
			n = cap - o - 4;
		memcpy(buf + o, name, n);
		o += n;
	}
	if (o + 4 >= cap)
		memcpy(buf + cap - 4, "...", 3), o = cap - 1;
	buf[o] = '\0';
}

static int sample_body(struct state *s, struct fk_sample_edit *e)
{
	lua_State *L = s->L;
	struct sample_ud *u;
	int status, t;

	lua_rawgeti(L, LUA_REGISTRYINDEX, s->sample_ref);
	u = lua_newuserdatauv(L, sizeof *u, 0);
	u->e = e;
	luaL_setmetatable(L, SAMPLE_MT);
	lua_pushvalue(L, -1);
	lua_rawseti(L, LUA_REGISTRYINDEX, s->sample_anchor); /* disarmed by protect() */
	lua_pushvalue(L, -1);
	lua_insert(L, -3);
	if (call(s, 1, 1, &status) < 0) {
		char ctx[CONTEXT_MAX + 64], st[CONTEXT_MAX + 1];
		stack_text(s, e, st, sizeof st);
		snprintf(ctx, sizeof ctx, " (in sample() for the stack %s)", st);
		u->e = NULL;
		status = report(s, status, ctx);
		lua_pop(L, 1);
		return status;
	}
	t = lua_type(L, -1);
	status = 0;
	if (t == LUA_TBOOLEAN && !lua_toboolean(L, -1)) {
		s->h->se_drop(e);
	} else if (t != LUA_TNIL && t != LUA_TBOOLEAN) {
		char st[CONTEXT_MAX + 1];
		stack_text(s, e, st, sizeof st);
		s->h->log(FK_LOG_ERROR, "%s:%d: sample() must return nil, true or false, not a %s "
		          "(for the stack %s)", s->script, s->sample_line, luaL_typename(L, -1), st);
		status = FK_ERR_SCRIPT;
	}
	u->e = NULL;
	lua_pop(L, 2);
	return status;
}

/* frame() and sample() run their bodies through protect(). */
struct edit {
	void *e;
	int status;
};

static int l_frame(lua_State *L)
{
	struct edit *c = lua_touserdata(L, 1);

	lua_settop(L, 0);
	c->status = frame_body(state_of(L), c->e);
	return 0;
}

static int l_sample(lua_State *L)
{
	struct edit *c = lua_touserdata(L, 1);

	lua_settop(L, 0);
	c->status = sample_body(state_of(L), c->e);
	return 0;
}

static int frame(void *state, struct fk_frame_edit *e)
{
	struct state *s = state;
	struct edit c = { e, 0 };
	int rc = protect(s, l_frame, &c);

	return rc < 0 ? rc : c.status;
}

static int sample(void *state, struct fk_sample_edit *e)
{
	struct state *s = state;
	struct edit c = { e, 0 };
	int rc;

	if (s->sample_ref == LUA_NOREF)
		return 0;
	rc = protect(s, l_sample, &c);
	return rc < 0 ? rc : c.status;
}

static const struct fk_option options[] = {
	FK_OPTION(FK_OPT_STRING, "script", NULL, struct opts, script,
	          "the Lua script defining frame(f) and/or sample(s)"),
	FK_OPTION(FK_OPT_STRING, "args", NULL, struct opts, args,
	          "a Lua table constructor given to the script as the global 'args'"),
	FK_OPTION(FK_OPT_STRING, "memory-limit", "64M", struct opts, memory_limit,
	          "cap on the script's Lua heap (K, M, G suffixes)"),
	FK_OPTION(FK_OPT_INT, "instruction-limit", "10000000", struct opts, instruction_limit,
	          "Lua VM instructions allowed per call of the script"),
	FK_OPTION_END,
};

static struct fk_filter_plugin plugin = {
	.h = {
		.name = "lua",
		.version = "1.0",
		.description = "run a sandboxed Lua 5.4 script on frames and samples",
		.options = options,
		.options_size = sizeof(struct opts),
	},
	.create = create,
	.frame = frame,
	.sample = sample,
	.destroy = destroy,
	.uses = uses,
};

FLAMEKIT_REGISTER_FILTER(plugin)
