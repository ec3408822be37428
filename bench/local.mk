# make bench runs bench/run.sh, which runs every bench/NN-name.sh in order.
EXTRA_DIST += bench
