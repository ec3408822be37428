# The manual pages: the reference a user (flamekit.1, flamekit-graph.1,
# flamekit-parallel.1, flamekit-job.5, flamekit-formats.5, flamekit-lua.7) or
# a plugin author (flamekit-plugin.3, flamekit-host.3) reads; the README only
# introduces them.  tests/man.sh lints every one.
dist_man_MANS = \
	man/flamekit.1 \
	man/flamekit-graph.1 \
	man/flamekit-parallel.1 \
	man/flamekit-formats.5 \
	man/flamekit-job.5 \
	man/flamekit-lua.7 \
	man/flamekit-plugin.3 \
	man/flamekit-host.3

TESTS += tests/man.sh
EXTRA_DIST += tests/man.sh
