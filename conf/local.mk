# The example job files and their small profiles, installed in
# $(pkgdatadir)/conf; `flamekit run` with no job runs conf/example.yaml.
confdir = $(pkgdatadir)/conf
dist_conf_DATA = \
	conf/example.yaml \
	conf/folded.yaml \
	conf/svg.yaml \
	conf/icicle.yaml \
	conf/flamechart.yaml \
	conf/differential.yaml \
	conf/hotcold.yaml
# Source tree only: they read examples/profiles/, which is not installed.
EXTRA_DIST += conf/perf.yaml conf/demo.yaml conf/hotcold-perf.yaml
EXTRA_DIST += conf/mmap-bytes.yaml conf/series.yaml
# perf --wakeups and --leak on the captures of tests/data/perf
EXTRA_DIST += conf/chain-perf.yaml conf/leak-perf.yaml
confdatadir = $(pkgdatadir)/conf/data
dist_confdata_DATA = \
	conf/data/app.folded \
	conf/data/before.folded \
	conf/data/after.folded \
	conf/data/on-cpu.folded \
	conf/data/off-cpu.folded
