# Tests of the input plugins callgrind (and, below, the thread dumps),
# against callgrind_annotate/cg_annotate and independent oracles over the
# dump text, on captures recorded at test time where the tools can run.
TESTS += tests/callgrind.sh
EXTRA_DIST += tests/callgrind.sh tests/oracle/cgannotate.py tests/oracle/cgprog.c \
	tests/data/callgrind/recursion.txt \
	tests/data/callgrind/xdebug.txt
TESTS += tests/threaddump.sh
EXTRA_DIST += tests/threaddump.sh tests/oracle/threaddump.py tests/oracle/threads.c tests/oracle/Threads.java \
	tests/data/threaddump/eu-stack.txt \
	tests/data/threaddump/gdb.txt \
	tests/data/threaddump/jstack.txt
TESTS += tests/sample.sh
EXTRA_DIST += tests/sample.sh tests/oracle/sample.py tests/data/sample/safari.txt
