# bench scripts: BENCH_LIST += bench/NAME.sh
