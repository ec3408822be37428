# The installed plugin SDK: a staged `make install`, the out-of-tree example
# plugin built against it, and ABI compatibility (an ABI 1.0 plugin, a
# wrong-major one).

# Built against the frozen 1.0 header only: its own CPPFLAGS replace
# AM_CPPFLAGS, so include/ (the current header) is not on the path.
check_LTLIBRARIES += tests/sdk/abi10.la
tests_sdk_abi10_la_SOURCES = tests/sdk/abi10.c tests/sdk/abi-1.0/flamekit/plugin.h
tests_sdk_abi10_la_CPPFLAGS = -I$(top_srcdir)/tests/sdk/abi-1.0
tests_sdk_abi10_la_LDFLAGS = $(TEST_MODULE_LDFLAGS) \
	-export-symbols-regex '^flamekit_plugin_'

TESTS += tests/sdk/sdk.sh
EXTRA_DIST += tests/sdk/sdk.sh \
	examples/plugin-bpftrace/bpftrace.c \
	examples/plugin-bpftrace/Makefile \
	examples/plugin-bpftrace/README.md \
	examples/plugin-bpftrace/sample.bpftrace.txt \
	examples/plugin-bpftrace/sample.expected.folded

# The SDK's compile-time and check() promises: snippets that must not
# compile, and a third-party range check that `run --check` honours.
TESTS += tests/sdk/checks.sh
EXTRA_DIST += tests/sdk/checks.sh
