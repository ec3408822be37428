# diff, merge, sharding and flamekit-parallel (doc/merge.md).

dist_bin_SCRIPTS += scripts/flamekit-parallel
TESTS += tests/merge.sh tests/shard.sh tests/ssh/run.sh
EXTRA_DIST += tests/merge.sh tests/shard.sh tests/ssh/run.sh doc/merge.md
