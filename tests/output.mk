# tests of the output area: svg, icicle, flamechart, hotcold
TESTS += tests/svg.sh tests/browser/svg-browser.sh
EXTRA_DIST += tests/svg.sh tests/browser/svg-browser.sh tests/browser/probe.js tests/browser/probe-links.js tests/browser/probe-search.js \
	tests/data/svg/small.txt tests/data/svg/diff.txt tests/data/svg/hotcold.txt \
	tests/data/svg/hostile-names.txt tests/data/svg/hostile.nameattr
