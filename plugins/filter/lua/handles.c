/*
 * Frames and samples as the script sees them: userdata with a locked
 * metatable, made for one call and disarmed when it returns, so nothing a
 * script keeps can reach engine memory later; and the calls of frame(f)
 * and sample(s) that hand them over and read the answer.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include "luafilter.h"

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

/*
 * The names a script gives the engine stay in the engine's memory for the
 * whole run, beyond the script's heap.  So each distinct one is kept in a
 * set in the script's own heap (the registry's names_ref), where it counts
 * against memory-limit: forty samples renamed to 8 MB names fail with
 * "memory limit (64M) exceeded" instead of taking 371 MB.  A name the
 * frame already has costs nothing.  The string at idx is a Lua string.
 */
static void keep_name(lua_State *L, int idx, const char *old, size_t oldn)
{
	struct state *s = state_of(L);
	size_t n;
	const char *t = lua_tolstring(L, idx, &n);

	if (old && oldn == n && memcmp(old, t, n) == 0)
		return;
	idx = lua_absindex(L, idx);
	lua_rawgeti(L, LUA_REGISTRYINDEX, s->names_ref);
	lua_pushvalue(L, idx);
	if (lua_rawget(L, -2) == LUA_TNIL) {
		lua_pushvalue(L, idx);
		lua_pushboolean(L, 1);
		lua_rawset(L, -4);
	}
	lua_pop(L, 2);
}

static int f_rename(lua_State *L)
{
	struct fk_frame_edit *e = frame_check(L);
	size_t n, on;
	const char *name = luaL_checklstring(L, 2, &n);
	const char *old = state_of(L)->h->fe_name(e, &on);
	keep_name(L, 2, old, on);
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
	size_t n, on, i = frame_index(L, e, 2, 0);
	const char *name = luaL_checklstring(L, 3, &n);
	const char *old = state_of(L)->h->se_frame_name(e, i, &on);
	keep_name(L, 3, old, on);
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
	struct state *st = state_of(L);
	size_t d = st->h->se_depth(e);

	/* The frames a script adds stay in the engine's tree, outside its
	 * heap: a call adds at most INSERT_MAX (a million a sample took 1.6 GB
	 * for forty samples), and pays for the frames it moves. */
	if (st->inserted >= INSERT_MAX)
		return luaL_error(L, "s:insert: a sample() call may add at most %d frames", INSERT_MAX);
	lf_charge(L, (double)(d - i), "s:insert moving %zu frames", d - i);
	st->inserted++;
	keep_name(L, 3, NULL, 0);
	if (st->h->se_insert(e, i, name, n) < 0)
		return luaL_error(L, "not enough memory");
	return 0;
}

static int s_remove(lua_State *L)
{
	struct fk_sample_edit *e = sample_check(L);
	size_t i = frame_index(L, e, 2, 0), j = i;
	if (!lua_isnoneornil(L, 3))
		j = frame_index(L, e, 3, 0);
	if (j >= i) {
		size_t d = state_of(L)->h->se_depth(e);
		lf_charge(L, (double)(d - j), "s:remove moving %zu frames", d - j - 1);
		state_of(L)->h->se_remove_range(e, i, j - i + 1);
	}
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
	lf_charge(L, (double)(n - i), "s:find over %zu frames", n - i);
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

/* s:label(key): the value of the sample's first attribute called key
 * (a pprof label), nil when it has none or the engine predates 1.3. */
static int s_label(lua_State *L)
{
	const struct fk_host *h = state_of(L)->h;
	struct fk_sample_edit *e = sample_check(L);
	size_t klen, n;
	const char *k = luaL_checklstring(L, 2, &klen), *v;

	v = FK_HOST_HAS(h, se_attr) ? h->se_attr(e, k, klen, &n) : NULL;
	if (v)
		lua_pushlstring(L, v, n);
	else
		lua_pushnil(L);
	return 1;
}

/* s.labels: a new table of the sample's attributes, key -> value (the
 * first value of a key given twice), empty when it has none. */
static void push_labels(lua_State *L, const struct fk_host *h, struct fk_sample_edit *e)
{
	const struct fk_attr *a = NULL;
	size_t n = FK_HOST_HAS(h, se_attrs) ? h->se_attrs(e, &a) : 0;

	lua_createtable(L, 0, (int)(n < 64 ? n : 64));
	for (size_t i = n; i-- > 0;) {
		/* backwards, so the first of a repeated key is the one kept */
		lua_pushlstring(L, a[i].key, a[i].key_len);
		lua_pushlstring(L, a[i].value, a[i].value_len);
		lua_rawset(L, -3);
	}
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
	} else if (strcmp(k, "labels") == 0) {
		push_labels(L, h, e);
	} else {
		static const struct { const char *name; lua_CFunction fn; } methods[] = {
			{ "module", s_module }, { "kind", s_kind }, { "rename", s_rename },
			{ "colour", s_colour }, { "color", s_colour }, { "insert", s_insert },
			{ "remove", s_remove }, { "cut", s_cut }, { "drop", s_drop },
			{ "find", s_find }, { "label", s_label },
		};
		for (size_t i = 0; i < sizeof methods / sizeof *methods; i++)
			if (strcmp(k, methods[i].name) == 0) {
				lua_pushcfunction(L, methods[i].fn);
				return 1;
			}
		return luaL_error(L, "a sample has no field '%s' (it has weight, pid, tid, comm, time, "
		                  "labels, module, kind, rename, colour, insert, remove, cut, drop, find, "
		                  "label)", k);
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


/* The frame and sample handles' metatables, locked. */
void lf_handles_register(lua_State *L)
{
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
}


/* Quote a name for an error message: at most CONTEXT_MAX bytes. */
static void lf_quote(char *buf, size_t cap, const char *name, size_t len)
{
	if (len > CONTEXT_MAX)
		snprintf(buf, cap, "%.*s...", CONTEXT_MAX, name);
	else
		snprintf(buf, cap, "%.*s", (int)len, name);
}

/* Push the function the registry holds at ref and, as its argument, a new
 * handle: a userdata of size bytes (zeroed: disarmed until the caller sets
 * its edit) with the metatable mt.  The handle is also kept at the
 * registry's anchor (disarmed by lf_protect()) and below the call, to be
 * disarmed after it.  Returns the handle. */
static void *push_call(lua_State *L, int ref, size_t size, const char *mt, int anchor)
{
	void *u;

	lua_rawgeti(L, LUA_REGISTRYINDEX, ref);
	u = lua_newuserdatauv(L, size, 0);
	memset(u, 0, size);
	luaL_setmetatable(L, mt);
	lua_pushvalue(L, -1);
	lua_rawseti(L, LUA_REGISTRYINDEX, anchor);
	lua_pushvalue(L, -1);
	lua_insert(L, -3);
	return u;
}

/* The name of the frame being edited, quoted for a message. */
static void frame_quote(struct state *s, struct fk_frame_edit *e, char *buf, size_t cap)
{
	size_t n;
	const char *name = s->h->fe_name(e, &n);

	lf_quote(buf, cap, name, n);
}

/* After frame() or sample() raised an error (its handle disarmed): the
 * error reported with ctx and its message popped. */
static int call_failed(struct state *s, int status, const char *ctx)
{
	status = lf_report(s, status, ctx);
	lua_pop(s->L, 1);
	return status;
}

int lf_frame_body(struct state *s, struct fk_frame_edit *e)
{
	lua_State *L = s->L;
	struct frame_ud *u;
	int status, t;

	s->ret_line = s->frame_line; /* a memory error out of the call names frame() */
	u = push_call(L, s->frame_ref, sizeof *u, FRAME_MT, s->frame_anchor);
	u->e = e;
	if (lf_call(s, 1, 1, &status) < 0) {
		char ctx[CONTEXT_MAX + 64], q[CONTEXT_MAX + 8];
		frame_quote(s, e, q, sizeof q);
		snprintf(ctx, sizeof ctx, " (in frame() for frame \"%s\")", q);
		u->e = NULL;
		return call_failed(s, status, ctx);
	}
	t = lua_type(L, -1);
	status = 0;
	if (t == LUA_TBOOLEAN && !lua_toboolean(L, -1)) {
		s->h->fe_drop(e);
	} else if (t == LUA_TSTRING) {
		size_t n, on;
		const char *name = lua_tolstring(L, -1, &n), *old = s->h->fe_name(e, &on);
		keep_name(L, -1, old, on);
		if (s->h->fe_rename(e, name, n) < 0)
			status = FK_ERR_NOMEM;
	} else if (t != LUA_TNIL && t != LUA_TBOOLEAN) {
		char q[CONTEXT_MAX + 8];
		frame_quote(s, e, q, sizeof q);
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

int lf_sample_body(struct state *s, struct fk_sample_edit *e)
{
	lua_State *L = s->L;
	struct sample_ud *u;
	int status, t;

	s->ret_line = s->sample_line;
	u = push_call(L, s->sample_ref, sizeof *u, SAMPLE_MT, s->sample_anchor);
	u->e = e;
	s->inserted = 0;
	if (lf_call(s, 1, 1, &status) < 0) {
		char ctx[CONTEXT_MAX + 64], st[CONTEXT_MAX + 1];
		stack_text(s, e, st, sizeof st);
		snprintf(ctx, sizeof ctx, " (in sample() for the stack %s)", st);
		u->e = NULL;
		return call_failed(s, status, ctx);
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

