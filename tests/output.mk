# tests of the output area: svg, icicle, flamechart, hotcold
TESTS += tests/svg.sh
EXTRA_DIST += tests/svg.sh \
	tests/data/svg/small.txt tests/data/svg/diff.txt tests/data/svg/hotcold.txt \
	tests/data/svg/hostile-names.txt tests/data/svg/hostile.nameattr
