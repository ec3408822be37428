/*
 * Filter plugin "lua": runs a Lua 5.4 script's frame() and sample()
 * functions (flamekit-lua(7) is the script API's reference).
 *
 * Each filter instance owns one lua_State, opened with a trimmed library
 * list (base without load/loadfile/dofile/collectgarbage, string without
 * dump, table, math, utf8), a memory-capped allocator and an
 * instruction-count hook (sandbox.c).  Scripts are loaded as text only;
 * `args` arrives as the engine's generic value tree (a job's mapping),
 * turned into Lua tables here, or as Lua table-constructor text.  Frames
 * and samples reach the script as userdata with a locked metatable
 * (handles.c); each handle is made for one call and disarmed when the call
 * returns, so nothing a script keeps can reach engine memory later.
 *
 * This file: the options, check(), the instance (create/destroy) and the
 * descriptor.
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
#include <unistd.h>

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include "luafilter.h"

struct opts {
	const char *script;
	const struct fk_value *args;
	const char *memory_limit;
	long long instruction_limit;
	double time_limit;
};

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

static char *dup_str(const struct fk_host *h, const char *t)
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

/* Push a structured value as Lua values: mappings and lists become tables,
 * unquoted numbers, true and false become numbers and booleans, null nil,
 * everything else a string.  Runs under lf_protect() (it allocates). */
static void push_value(struct state *s, const struct fk_value *v)
{
	const struct fk_host *h = s->h;
	lua_State *L = s->L;
	size_t len, n;
	const char *t = h->value_text(v, &len);

	luaL_checkstack(L, 4, "args nested too deeply");
	switch (h->value_type(v)) {
	case FK_VALUE_NULL:
		lua_pushnil(L);
		return;
	case FK_VALUE_BOOL:
		lua_pushboolean(L, strcmp(t, "true") == 0);
		return;
	case FK_VALUE_NUMBER:
		if (lua_stringtonumber(L, t) == 0)
			lua_pushlstring(L, t, len);
		return;
	case FK_VALUE_MAP:
	case FK_VALUE_LIST:
		n = h->value_count(v);
		lua_createtable(L, h->value_type(v) == FK_VALUE_LIST ? (int)(n < 1u << 20 ? n : 0) : 0,
		                h->value_type(v) == FK_VALUE_MAP ? (int)(n < 1u << 20 ? n : 0) : 0);
		for (size_t i = 0; i < n; i++) {
			const char *key;
			size_t keylen;
			const struct fk_value *item = h->value_item(v, i, &key, &keylen);
			push_value(s, item);
			if (key) {
				lua_pushlstring(L, key, keylen);
				lua_insert(L, -2);
				lua_rawset(L, -3);
			} else {
				lua_rawseti(L, -2, (lua_Integer)i + 1);
			}
		}
		return;
	default:
		lua_pushlstring(L, t ? t : "", len);
	}
}

/* The global `args`: a job's mapping as a table, or a text (the command
 * line, a job's single value) evaluated as a Lua table constructor. */
static int load_args(struct state *s, const struct fk_value *args)
{
	lua_State *L = s->L;
	int status, type = s->h->value_type(args);
	const char *text;

	if (type == FK_VALUE_NULL)
		return 0;
	if (type == FK_VALUE_LIST) {
		s->h->log(FK_LOG_ERROR, "%s: args must be a mapping (or Lua table text), not a list",
		          s->where);
		return FK_ERR_USAGE;
	}
	if (type == FK_VALUE_MAP) {
		push_value(s, args);
		lua_setglobal(L, "args");
		return 0;
	}
	if (!*(text = s->h->value_text(args, NULL)))
		return 0;
	lua_pushliteral(L, "return ");
	lua_pushstring(L, text);
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
	if (lf_call(s, 0, 1, &status) < 0)
		return lf_report(s, status, " (evaluating args)");
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


/* Keep a reference to the script's global function `name` (and the line
 * it is defined at); a global that is set but no function is an error. */
static int find_callback(struct state *s, const char *script, const char *name, int *ref, int *line)
{
	lua_getglobal(s->L, name);
	if (lua_isfunction(s->L, -1)) {
		*line = defined_at(s->L);
		*ref = luaL_ref(s->L, LUA_REGISTRYINDEX);
		return 0;
	}
	if (!lua_isnil(s->L, -1)) {
		s->h->log(FK_LOG_ERROR, "%s: the global '%s' must be a function, not a %s", script, name,
		          luaL_typename(s->L, -1));
		lua_pop(s->L, 1);
		return FK_ERR_SCRIPT;
	}
	lua_pop(s->L, 1);
	return 0;
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
	lua_newtable(s->L);
	s->names_ref = luaL_ref(s->L, LUA_REGISTRYINDEX);
	lua_pushcfunction(s->L, lf_open_sandbox);
	if (lf_call(s, 0, 0, &status) < 0) {
		rc = lf_report(s, status, " (opening the libraries)");
		return rc;
	}
	if ((rc = load_args(s, o->args)) < 0)
		return rc;
	/* text only: a precompiled chunk could break the VM's invariants */
	status = luaL_loadbufferx(s->L, src, srclen, chunk, "t");
	if (status != LUA_OK) {
		const char *m = lua_tostring(s->L, -1);
		if (s->over_mem || status == LUA_ERRMEM)
			rc = lf_report(s, status, "");
		else {
			char full[1024];
			lf_full_src(s, m ? m : "?", m ? strlen(m) : 1, full, sizeof full);
			h->log(FK_LOG_ERROR, "%s%s", m && strstr(m, "binary chunk") ? o->script : "",
			       m && strstr(m, "binary chunk") ?
			       ": precompiled (binary) scripts are refused; give the Lua source" : full);
			lua_pop(s->L, 1);
			rc = FK_ERR_USAGE; /* a script that does not compile: the job is invalid */
		}
		return rc;
	}
	if (lf_call(s, 0, 0, &status) < 0) {
		rc = lf_report(s, status, " (running the script's main chunk)");
		return rc;
	}
	if ((rc = find_callback(s, o->script, "frame", &s->frame_ref, &s->frame_line)) < 0 ||
	    (rc = find_callback(s, o->script, "sample", &s->sample_ref, &s->sample_line)) < 0)
		return rc;
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

/* The script is there and the limits make sense.  `where`, when not NULL,
 * goes in front of each message (create's messages need it; check's get
 * it from the engine). */
static int check_opts(const struct fk_host *h, const struct opts *o, const char *where)
{
	const char *sep = where ? ": " : "";
	size_t mem;

	if (!where)
		where = "";
	if (!FK_HOST_HAS(h, value_item)) {
		h->log(FK_LOG_ERROR, "%s%sthe lua filter needs flamekit's plugin ABI 1.2 or newer", where, sep);
		return FK_ERR_PLUGIN;
	}
	if (!o->script || !*o->script) {
		h->log(FK_LOG_ERROR, "%s%sthe lua filter needs a script (script: FILE.lua)", where, sep);
		return FK_ERR_USAGE;
	}
	if (access(o->script, R_OK) < 0) {
		h->log(FK_LOG_ERROR, "%s%scannot read \"%s\": %s", where, sep, o->script, strerror(errno));
		return FK_ERR_USAGE;
	}
	if (h->value_type(o->args) == FK_VALUE_LIST) {
		h->log(FK_LOG_ERROR, "%s%sargs must be a mapping (or Lua table text), not a list", where, sep);
		return FK_ERR_USAGE;
	}
	if (lf_parse_size(o->memory_limit, &mem) < 0 || mem < 64 * 1024) {
		h->log(FK_LOG_ERROR, "%s%smemory-limit must be a size of at least 64K, like 64M, not \"%s\"",
		       where, sep, o->memory_limit ? o->memory_limit : "");
		return FK_ERR_USAGE;
	}
	if (o->instruction_limit < 1000) {
		h->log(FK_LOG_ERROR, "%s%sinstruction-limit must be at least 1000, not %lld", where, sep,
		       o->instruction_limit);
		return FK_ERR_USAGE;
	}
	if (!(o->time_limit >= 0 && o->time_limit <= 1e6)) {
		h->log(FK_LOG_ERROR, "%s%stime-limit must be a number of seconds from 0 (none) to 1000000, "
		       "not %g", where, sep, o->time_limit);
		return FK_ERR_USAGE;
	}
	return 0;
}

/* Before any input is read (the engine puts the origin in front). */
static int check(const struct fk_host *h, const void *optp, const char *where)
{
	(void)where;
	return check_opts(h, optp, NULL);
}

static int create(const struct fk_host *h, const void *optp, const char *where, void **out)
{
	const struct opts *o = optp;
	struct state *s;
	char *src = NULL, *chunk = NULL;
	size_t srclen = 0;
	int rc;

	if (!FK_HOST_HAS(h, value_item) || !o->script || !*o->script ||
	    lf_parse_size(o->memory_limit, &srclen) < 0 || srclen < 64 * 1024 ||
	    o->instruction_limit < 1000 || !(o->time_limit >= 0 && o->time_limit <= 1e6))
		return check_opts(h, o, where); /* says what is wrong */
	srclen = 0;
	s = h->alloc(sizeof *s);
	if (!s)
		return FK_ERR_NOMEM;
	memset(s, 0, sizeof *s);
	s->h = h;
	s->frame_ref = s->sample_ref = LUA_NOREF;
	rc = FK_ERR_NOMEM;
	if (!(s->where = dup_str(h, where)) || !(s->script = dup_str(h, o->script)))
		goto fail;
	lf_parse_size(o->memory_limit, &s->memlimit); /* checked above */
	s->memtext = o->memory_limit; /* options live as long as the instance */
	s->ilimit = o->instruction_limit;
	s->tlimit = o->time_limit;
	s->hook_step = HOOK_STEP;
	rc = read_file(h, o->script, &src, &srclen);
	if (rc == -ENOMEM) {
		rc = FK_ERR_NOMEM;
		goto fail;
	} else if (rc < 0) {
		h->log(FK_LOG_ERROR, "%s: cannot read the script %s: %s", where, o->script, strerror(-rc));
		rc = FK_ERR_IO;
		goto fail;
	}
	s->L = lua_newstate(lf_l_alloc, s);
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
		rc = lf_protect(s, l_setup, &u);
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


/* frame() and sample() run their bodies through lf_protect(). */
struct edit {
	void *e;
	int status;
};

static int l_frame(lua_State *L)
{
	struct edit *c = lua_touserdata(L, 1);

	lua_settop(L, 0);
	c->status = lf_frame_body(state_of(L), c->e);
	return 0;
}

static int l_sample(lua_State *L)
{
	struct edit *c = lua_touserdata(L, 1);

	lua_settop(L, 0);
	c->status = lf_sample_body(state_of(L), c->e);
	return 0;
}

static int frame(void *state, struct fk_frame_edit *e)
{
	struct state *s = state;
	struct edit c = { e, 0 };
	int rc = lf_protect(s, l_frame, &c);

	return rc < 0 ? rc : c.status;
}

static int sample(void *state, struct fk_sample_edit *e)
{
	struct state *s = state;
	struct edit c = { e, 0 };
	int rc;

	if (s->sample_ref == LUA_NOREF)
		return 0;
	rc = lf_protect(s, l_sample, &c);
	return rc < 0 ? rc : c.status;
}

static const struct fk_option options[] = {
	FK_OPTION(FK_OPT_PATH, "script", NULL, struct opts, script,
	          "the Lua script defining frame(f) and/or sample(s) (in a job: relative to the job file)"),
	FK_OPTION(FK_OPT_VALUE, "args", NULL, struct opts, args,
	          "the script's global 'args': a job's mapping, or a Lua table constructor as text"),
	FK_OPTION(FK_OPT_STRING, "memory-limit", "64M", struct opts, memory_limit,
	          "cap on the script's Lua heap (K, M, G suffixes)"),
	FK_OPTION(FK_OPT_INT, "instruction-limit", "10000000", struct opts, instruction_limit,
	          "Lua VM instructions allowed per call of the script"),
	FK_OPTION(FK_OPT_DOUBLE, "time-limit", "60", struct opts, time_limit,
	          "CPU seconds allowed per call of the script (0: no limit)"),
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
	.check = check,
};

FLAMEKIT_REGISTER_FILTER(plugin)

