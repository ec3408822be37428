# Tests of the input plugins bpftrace and bcc and of the demangle filter, against the independent
# oracles of tests/oracle/ (python3), on shipped captures and on captures
# recorded at test time where the tools can run.
TESTS += tests/bpftrace.sh tests/bcc.sh tests/demangle.sh
EXTRA_DIST += tests/bpftrace.sh tests/oracle/bpftrace.py tests/oracle/burn.c \
	tests/bcc.sh tests/oracle/bcc.py tests/oracle/check.sh \
	tests/demangle.sh tests/oracle/demangle.py tests/data/demangle/names.folded \
	tests/data/bpftrace/comm-pid-tid-ustack.txt \
	tests/data/bpftrace/forms.txt \
	tests/data/bpftrace/kstack-ustack-comm.txt \
	tests/data/bpftrace/kstack.txt \
	tests/data/bpftrace/perf-mode.txt \
	tests/data/bpftrace/scalar-map.txt \
	tests/data/bpftrace/two-maps.txt \
	tests/data/bcc/offcputime.txt \
	tests/data/bcc/offwaketime-delimited.txt \
	tests/data/bcc/offwaketime.txt \
	tests/data/bcc/profile-delimited.txt \
	tests/data/bcc/profile.txt \
	tests/data/bcc/stackcount-verbose-pid.txt \
	tests/data/bcc/stackcount.txt
