# make bench runs bench/run.sh, which runs every bench/NN-name.sh in order.
# The scripts reach the tarball through dist-hook: listing the directory in
# EXTRA_DIST would make `make dist` run the phony `bench` target.
dist-hook: dist-bench
dist-bench:
	$(MKDIR_P) $(distdir)/bench
	cp -p $(srcdir)/bench/*.sh $(srcdir)/bench/*.py $(distdir)/bench/
.PHONY: dist-bench
