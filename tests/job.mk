# Job files and Lua filters: the installed example jobs and stock scripts,
# and their tests.

# `flamekit run` with no job runs $(pkgdatadir)/conf/example.yaml.
flamekit_CPPFLAGS = $(AM_CPPFLAGS) -DFK_PKGDATADIR='"$(pkgdatadir)"'

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

confdir = $(pkgdatadir)/conf
dist_conf_DATA = \
	conf/example.yaml \
	conf/folded.yaml \
	conf/svg.yaml \
	conf/icicle.yaml \
	conf/flamechart.yaml \
	conf/differential.yaml \
	conf/hotcold.yaml
confdatadir = $(pkgdatadir)/conf/data
dist_confdata_DATA = \
	conf/data/app.folded \
	conf/data/before.folded \
	conf/data/after.folded \
	conf/data/on-cpu.folded \
	conf/data/off-cpu.folded
