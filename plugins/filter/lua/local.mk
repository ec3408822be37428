# lua: the scripted filter (one sandboxed Lua 5.4 state per instance).
pkglib_LTLIBRARIES += plugins/filter-lua.la
plugins_filter_lua_la_SOURCES = plugins/filter/lua/lua.c plugins/filter/lua/luafilter.h \
	plugins/filter/lua/sandbox.c plugins/filter/lua/costs.c plugins/filter/lua/handles.c
plugins_filter_lua_la_CFLAGS = $(AM_CFLAGS) $(LUA_CFLAGS)
plugins_filter_lua_la_LDFLAGS = $(PLUGIN_LDFLAGS)
plugins_filter_lua_la_LIBADD = $(LUA_LIBS)
