# Tests of the xctrace input plugin against an independent oracle over the XML.
TESTS += tests/xctrace.sh
EXTRA_DIST += tests/xctrace.sh tests/oracle/xctrace.py \
	tests/data/xctrace/two-processes.xml \
	tests/data/xctrace/tagged.xml \
	tests/data/xctrace/cpu-profile.xml \
	tests/data/xctrace/two-tables.xml \
	tests/data/xctrace/hostile-depth.xml \
	tests/data/xctrace/hostile-duplicate-id.xml \
	tests/data/xctrace/hostile-entities.xml \
	tests/data/xctrace/hostile-external-entity.xml \
	tests/data/xctrace/hostile-forward-ref.xml \
	tests/data/xctrace/hostile-unknown-ref.xml \
	tests/data/xctrace/hostile-weight.xml \
	tests/data/xctrace/hostile-wrong-kind.xml
