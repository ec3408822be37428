# The stock Lua filter scripts, installed in $(pkgdatadir)/lua.
luadir = $(pkgdatadir)/lua
dist_lua_DATA = \
	lua/collapse-recursion.lua \
	lua/colour-kernel.lua \
	lua/colour-module.lua \
	lua/cut-above.lua \
	lua/drop-idle.lua \
	lua/exclude.lua \
	lua/focus.lua \
	lua/per-thread.lua \
	lua/short-names.lua \
	lua/strip-offsets.lua
