# diff, merge, sharding and flamekit-parallel (flamekit(1), flamekit-parallel(1)).

dist_bin_SCRIPTS += scripts/flamekit-parallel
TESTS += tests/merge.sh tests/shard.sh tests/ssh/run.sh
EXTRA_DIST += tests/merge.sh tests/shard.sh tests/ssh/run.sh

check_PROGRAMS += tests/unit/shard.t
TESTS += tests/unit/shard.t
tests_unit_shard_t_SOURCES = tests/unit/shard.c tests/unit/testlib.h
tests_unit_shard_t_CFLAGS = $(TEST_CFLAGS)
tests_unit_shard_t_LDADD = $(TEST_LDADD)
