/*
 * The library calls that loop in C, where the instruction hook cannot
 * reach them, each charged against the call's instruction budget before it
 * runs (and refused, as an endless loop is, when the budget cannot pay):
 *
 *   - string.find, match, gmatch and gsub: an upper bound of the matcher's
 *     steps, PATTERN_STEPS to an instruction (Lua patterns backtrack: a
 *     100 KB subject and ".-b" take minutes);
 *   - string.rep of an empty string: one instruction per COPY_STEPS
 *     copies (string.rep("", 1 << 62) copies nothing, allocates nothing
 *     and loops for ever);
 *   - every other string and utf8 function, and tonumber: the bytes of
 *     their string arguments, SCAN_BYTES to an instruction (utf8.len of a
 *     32 MB string reads it all and allocates nothing);
 *   - table.concat, unpack, move, insert, remove and sort: one instruction
 *     per element they visit (n log n for sort).  insert, remove and sort
 *     read the table's length in C, so they refuse a table with a __len
 *     metamethod (which could answer 1 to this charge and 2^62 to them)
 *     and anything that is not a table.  sort compares in C, and a
 *     comparison of two long strings reads them whole (two distinct 8 MB
 *     strings of equal content, sorted in a 100,000-element table: hours),
 *     so each comparison also costs the longest string element's bytes;
 *   - math.max, math.min and select: one instruction per argument (a
 *     million of them, from table.unpack, read in one call).
 *
 * Bytes a script allocates are charged too (lf_l_alloc, SCAN_BYTES to an
 * instruction), so copies that allocate (s:upper(), a .. b) are covered.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <lua.h>

#include "luafilter.h"

#define PATTERN_STEPS 16
#define COPY_STEPS 16

enum cost {
	C_FIND, C_MATCH, C_GMATCH, C_GSUB, /* patterns: keep these first, in this order */
	C_REP, C_SCAN, C_CONCAT, C_UNPACK, C_MOVE, C_INSERT, C_REMOVE, C_SORT, C_ARGS,
};

void lf_charge(lua_State *L, double steps, const char *fmt, ...)
{
	struct state *s = state_of(L);
	char w[256], what[160];
	va_list ap;

	if (!(steps > (double)(s->ilimit - s->icount))) {
		s->icount += (long long)steps;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	lf_where(L, w, sizeof w);
	if (!s->over_mem && !s->limit_msg[0])
		snprintf(s->limit_msg, sizeof s->limit_msg, "%s instruction limit of %lld exceeded (%s)",
		         w, s->ilimit, what);
	lf_poison(s, L);
	lua_pushstring(L, s->limit_msg);
	lua_error(L);
}

/* ---- patterns ------------------------------------------------------------ */

/* An upper bound of the matcher steps of one call: (n + 1) start
 * positions, times (n + 1) for each repetition (* + - %b) or
 * back-reference, times the pattern's length, for an n-byte subject.  On
 * frame names (tens of bytes) the charge is negligible. */
static double pattern_cost(int fn, size_t n, const char *p, size_t m, bool plain)
{
	double cost = (double)m + 1, span = (double)n + 1;
	bool specials = false;
	size_t i = 0;

	if (!plain)
		for (size_t k = 0; k < m && !specials; k++)
			specials = strchr("^$*+?.([%-", p[k]) != NULL;
	if (plain || (fn == C_FIND && !specials))
		return span * cost; /* a plain substring search */
	if (m > 0 && p[0] == '^' && fn != C_GMATCH)
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

/* ---- the charges ------------------------------------------------------------ */

/* Bytes of the string arguments (numbers are short). */
static double string_bytes(lua_State *L)
{
	double b = 0;
	for (int i = 1, n = lua_gettop(L); i <= n; i++)
		if (lua_type(L, i) == LUA_TSTRING)
			b += (double)lua_rawlen(L, i);
	return b;
}

/* insert, remove and sort: a table whose length is its own. */
static size_t plain_length(lua_State *L, const char *name)
{
	luaL_checktype(L, 1, LUA_TTABLE);
	if (luaL_getmetafield(L, 1, "__len") != LUA_TNIL)
		luaL_error(L, "%s: tables with a __len metamethod are not allowed in filter "
		           "scripts (the length is read in C, outside the instruction limit)", name);
	return lua_rawlen(L, 1);
}

/* An optional integer argument i (def when absent). */
static lua_Integer opt_int(lua_State *L, int i, lua_Integer def)
{
	return lua_isnoneornil(L, i) ? def : luaL_checkinteger(L, i);
}

/* A range i..j as an element count. */
static double span_of(lua_Integer i, lua_Integer j)
{
	return j >= i ? (double)j - (double)i + 1 : 0;
}

static void charge_call(lua_State *L, int kind, const char *name)
{
	size_t n, m;
	const char *p;
	double cost;
	lua_Integer i, j;

	switch (kind) {
	case C_FIND: case C_MATCH: case C_GMATCH: case C_GSUB:
		luaL_checklstring(L, 1, &n);
		p = luaL_checklstring(L, 2, &m);
		cost = pattern_cost(kind, n, p, m, kind == C_FIND && lua_toboolean(L, 4));
		lf_charge(L, cost / PATTERN_STEPS, "%s of a %zu-byte string may take %.3g pattern steps",
		       name, n, cost);
		return;
	case C_REP:
		/* copies of something allocate their bytes, which the memory
		 * limit bounds and the allocator charges; copies of nothing
		 * cost only their count */
		luaL_checklstring(L, 1, &n);
		i = luaL_checkinteger(L, 2);
		luaL_optlstring(L, 3, "", &m);
		if (n + m == 0)
			lf_charge(L, i > 0 ? (double)i / COPY_STEPS : 0, "%s of %lld empty copies", name,
			       (long long)i);
		return;
	case C_SCAN:
		cost = string_bytes(L);
		lf_charge(L, cost / SCAN_BYTES, "%s of %.0f bytes", name, cost);
		return;
	case C_CONCAT:
	case C_UNPACK: {
		/* the length is asked once, here, and passed on as the last
		 * index: the library does not ask __len again */
		int ai = kind == C_CONCAT ? 3 : 2, aj = ai + 1;
		if (lua_isnoneornil(L, aj) && (lua_type(L, 1) == LUA_TTABLE ||
		                               luaL_getmetafield(L, 1, "__len") != LUA_TNIL)) {
			if (lua_type(L, 1) != LUA_TTABLE)
				lua_pop(L, 1); /* the metafield */
			lua_settop(L, aj);
			lua_pushinteger(L, luaL_len(L, 1));
			lua_replace(L, aj);
		}
		i = opt_int(L, ai, 1);
		j = opt_int(L, aj, 0);
		lf_charge(L, span_of(i, j), "%s of %.0f elements", name, span_of(i, j));
		return;
	}
	case C_MOVE:
		i = luaL_checkinteger(L, 2);
		j = luaL_checkinteger(L, 3);
		lf_charge(L, span_of(i, j), "%s of %.0f elements", name, span_of(i, j));
		return;
	case C_INSERT:
	case C_REMOVE:
		/* the elements moved: from pos to the end */
		n = plain_length(L, name);
		if (kind == C_INSERT)
			i = lua_gettop(L) >= 3 ? luaL_checkinteger(L, 2) : (lua_Integer)n + 1;
		else
			i = opt_int(L, 2, (lua_Integer)n);
		if (i < 1)
			i = 1; /* out of bounds: the library refuses it */
		lf_charge(L, span_of(i, (lua_Integer)n + 1), "%s of %.0f elements", name,
		       span_of(i, (lua_Integer)n + 1));
		return;
	case C_SORT: {
		double lg = 1;
		n = plain_length(L, name);
		for (size_t k = n; k; k >>= 1)
			lg++;
		m = 0; /* the longest string element: what one comparison may read */
		for (size_t k = 1; k <= n; k++) {
			if (lua_rawgeti(L, 1, (lua_Integer)k) == LUA_TSTRING && lua_rawlen(L, -1) > m)
				m = lua_rawlen(L, -1);
			lua_pop(L, 1);
		}
		if (m < SCAN_BYTES)
			lf_charge(L, (double)n * lg, "%s of %zu elements", name, n);
		else
			lf_charge(L, (double)n * lg * (1 + (double)m / SCAN_BYTES),
			          "%s of %zu elements, strings of up to %zu bytes", name, n, m);
		return;
	}
	case C_ARGS:
		lf_charge(L, lua_gettop(L), "%s of %d arguments", name, lua_gettop(L));
		return;
	}
}

static int l_costly(lua_State *L);

/* An argument error of a library function l_costly called names it '?'
 * (it is no longer in its library's table): the message handler, which
 * runs where the error was raised, puts the name back. */
int lf_fix_argerror(lua_State *L, const char *msg)
{
	const char *q = strstr(msg, " to '?'"), *name, *dot;
	char *end;
	long arg;
	lua_Debug ar;

	if (!q || strncmp(msg, "bad argument #", 14) != 0)
		return 0;
	for (int level = 1; level <= 3 && lua_getstack(L, level, &ar); level++) {
		if (!lua_getinfo(L, "f", &ar))
			continue;
		if (lua_tocfunction(L, -1) != l_costly) {
			lua_pop(L, 1);
			continue;
		}
		lua_getupvalue(L, -1, 3);
		name = lua_tostring(L, -1);
		dot = name ? strchr(name, '.') : NULL;
		if (!lua_getinfo(L, "n", &ar) || !ar.name)
			dot = NULL; /* no name from the caller: 'string.sub' */
		/* s:sub({}): Lua counts a method's arguments after self */
		if (ar.name && ar.namewhat && strcmp(ar.namewhat, "method") == 0 &&
		    (arg = strtol(msg + 14, &end, 10)) > 1 && end <= q) {
			lua_pushfstring(L, "bad argument #%d%s", (int)arg - 1, end);
			msg = lua_tostring(L, -1);
			q = strstr(msg, " to '?'");
		} else {
			lua_pushvalue(L, -1); /* popped with the method's text */
		}
		lua_pushlstring(L, msg, (size_t)(q - msg) + 5);
		lua_pushstring(L, dot ? dot + 1 : name ? name : "?");
		lua_pushstring(L, q + 6);
		lua_concat(L, 3);
		lua_replace(L, -2);
		lua_replace(L, -3);
		lua_pop(L, 1);
		return 1;
	}
	return 0;
}

/* upvalues: the library function, its cost kind, its name */
static int l_costly(lua_State *L)
{
	int kind = (int)lua_tointeger(L, lua_upvalueindex(2));
	const char *name = lua_tostring(L, lua_upvalueindex(3));

	charge_call(L, kind, name);
	lua_pushvalue(L, lua_upvalueindex(1));
	lua_insert(L, 1);
	lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
	return lua_gettop(L);
}

/* Wrap field `name` of the table on top of the stack, library lib. */
static void wrap(lua_State *L, const char *lib, const char *name, int kind)
{
	if (lua_getfield(L, -1, name) != LUA_TFUNCTION) {
		lua_pop(L, 1);
		return;
	}
	lua_pushinteger(L, kind);
	if (lib)
		lua_pushfstring(L, "%s.%s", lib, name);
	else
		lua_pushstring(L, name);
	lua_pushcclosure(L, l_costly, 3);
	lua_setfield(L, -2, name);
}

void lf_wrap_costly(lua_State *L)
{
	static const char *const patterns[] = { "find", "match", "gmatch", "gsub" };
	static const char *const scans[] = {
		"byte", "char", "format", "lower", "upper", "reverse", "sub", "pack", "unpack",
		"packsize", NULL
	};
	static const char *const utf8s[] = { "char", "codepoint", "len", "offset", "codes", NULL };
	static const struct { const char *name; int kind; } tables[] = {
		{ "concat", C_CONCAT }, { "unpack", C_UNPACK }, { "move", C_MOVE },
		{ "insert", C_INSERT }, { "remove", C_REMOVE }, { "sort", C_SORT },
	};

	/* the string table is also the strings' metatable __index */
	lua_getglobal(L, "string");
	for (int k = C_FIND; k <= C_GSUB; k++)
		wrap(L, "string", patterns[k], k);
	wrap(L, "string", "rep", C_REP);
	for (const char *const *n = scans; *n; n++)
		wrap(L, "string", *n, C_SCAN);
	lua_pop(L, 1);
	lua_getglobal(L, "utf8");
	for (const char *const *n = utf8s; *n; n++)
		wrap(L, "utf8", *n, C_SCAN);
	lua_pop(L, 1);
	lua_getglobal(L, "table");
	for (size_t k = 0; k < sizeof tables / sizeof *tables; k++)
		wrap(L, "table", tables[k].name, tables[k].kind);
	lua_pop(L, 1);
	lua_getglobal(L, "math");
	wrap(L, "math", "max", C_ARGS);
	wrap(L, "math", "min", C_ARGS);
	lua_pop(L, 1);
	lua_pushglobaltable(L);
	wrap(L, NULL, "tonumber", C_SCAN);
	wrap(L, NULL, "select", C_ARGS);
	lua_pop(L, 1);
}
