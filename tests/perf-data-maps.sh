#!/bin/sh
# Code in memory that is no file, named natively as perf script 6.1 names
# it (map__new in tools/perf/util/map.c), byte for byte through `flamekit
# collapse --format perf`, on captures recorded here and now (skipped where
# perf cannot record).  A program copies a loop of machine code into an
# executable region and runs it, its frame chain passing through an address
# in a non-executable anonymous mapping (a forged frame, as a broken frame
# chain leaves one; perf record -d writes that mapping's record).  The
# regions: part of the program break made executable (the kernel names it
# [heap], as it names chromium's code range laid over its break), an
# anonymous mapping (//anon), a System V segment attached with SHM_EXEC
# (/SYSV00000000 (deleted)) and a memfd mapped executable (/memfd:NAME
# (deleted)); and time() called through the legacy vsyscall page, in a
# process perf attaches to.  perf names anonymous and fileless memory, when
# executable, /tmp/perf-PID.map (its JIT map), else by the kernel's name
# ([heap], //anon); a memfd and [vsyscall] are files it cannot read
# (addresses from the map's start).  HOME is a temporary directory: perf's
# build-id cache is not the user's.
. "$FK_SRCDIR/tests/lib.sh"
perf_home
need_perf "code outside files"

cat > mapx.c <<'EOF'
#define _GNU_SOURCE
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <unistd.h>

#define SIZE (1 << 16)

int main(int argc, char **argv)
{
	/* push %rbp; mov %rsp,%rbp; movabs $FRAME,%rax; mov %rax,%rbp;
	 * movabs $N,%rax; 1: dec %rax; jnz 1b; pop %rbp; ret */
	unsigned char code[] = { 0x55, 0x48, 0x89, 0xe5, 0x48, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0,
	                         0x48, 0x89, 0xc5, 0x48, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0,
	                         0x48, 0xff, 0xc8, 0x75, 0xfb, 0x5d, 0xc3 };
	uint64_t n = 300000000, frame;
	uint64_t *data = mmap(NULL, SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	unsigned char *p = MAP_FAILED;
	int fd;

	if (argc < 2 || data == MAP_FAILED)
		return 1;
	if (strcmp(argv[1], "vsyscall") == 0) {
		/* time() through the legacy page, emulated by the kernel, for 2 s */
		long (*vtime)(long *) = (long (*)(long *))0xffffffffff600400;
		long end = vtime(0) + 2;

		while (vtime(0) < end)
			;
		return 0;
	}
	if (strcmp(argv[1], "heap") == 0) {
		uintptr_t top = (uintptr_t)sbrk(2 * SIZE);

		if (top == (uintptr_t)-1)
			return 1;
		p = (unsigned char *)((top + 4095) & ~(uintptr_t)4095);
		if (mprotect(p, SIZE, PROT_READ | PROT_WRITE | PROT_EXEC) != 0)
			return 1;
	} else if (strcmp(argv[1], "anon") == 0) {
		p = mmap(NULL, SIZE, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	} else if (strcmp(argv[1], "sysv") == 0) {
		int id = shmget(IPC_PRIVATE, SIZE, IPC_CREAT | 0600);

		if (id < 0)
			return 1;
		p = shmat(id, NULL, SHM_EXEC);
		shmctl(id, IPC_RMID, NULL);
		if (p == (void *)-1)
			return 1;
	} else if (strcmp(argv[1], "memfd") == 0) {
		if ((fd = memfd_create("fk-code", 0)) < 0 || ftruncate(fd, SIZE) != 0)
			return 1;
		p = mmap(NULL, SIZE, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_SHARED, fd, 0);
	}
	if (p == MAP_FAILED)
		return 1;
	/* the forged frame: its caller in the data mapping, then main's caller */
	data[0] = (uint64_t)(uintptr_t)__builtin_frame_address(0);
	data[1] = (uint64_t)(uintptr_t)(data + 100);
	frame = (uint64_t)(uintptr_t)data;
	memcpy(code + 6, &frame, sizeof frame);
	memcpy(code + 19, &n, sizeof n);
	memcpy(p + 64, code, sizeof code);
	((void (*)(void))(p + 64))();
	return 0;
}
EOF
compile_or_skip "code outside files" -O1 -fno-omit-frame-pointer -o mapx mapx.c
[ "$(uname -m)" = x86_64 ] || skip_all "code outside files" "the test's machine code is x86_64's"
./mapx anon || skip_all "code outside files" "this system refuses executable anonymous memory"
record_or_skip "code outside files" -q -d -g -F 2000 -o anon.data ./mapx anon

# case_of MODE KERNELNAME NAME [s]: record ./mapx MODE, check the kernel
# named its region KERNELNAME (else skip; s: a shared mapping), compare the native reader (no perf in PATH)
# with the pipeline, with and without --addrs
case_of() {
	if ! [ -f "$1.data" ] && ! perf record -q -d -g -F 2000 -o "$1.data" ./mapx "$1" > rec.log 2>&1; then
		skip "$3" "./mapx $1 fails or perf cannot record it: $(head -1 rec.log)"
		return
	fi
	perf script -i "$1.data" --show-mmap-events 2> /dev/null | grep ' rwx[ps] ' > mmaps.txt
	if ! grep -qF "x${4:-p} $2" mmaps.txt; then
		skip "$3" "the kernel did not name the region $2: $(sed 's/.* rwx[ps] //' mmaps.txt | head -1)"
		return
	fi
	for o in "" --addrs; do
		perf script -i "$1.data" 2> /dev/null | "$FLAMEKIT" collapse --format perf $o > want.folded 2> /dev/null
		run env PATH=/nonexistent "$FLAMEKIT" collapse $o "$1.data"
		printf '%s\n' "$out" > got.folded
		same_file want.folded got.folded "$3${o:+ ($o)}: perf script's bytes ($(wc -l < want.folded) stacks)"
		[ -n "$o" ] || cp want.folded "$1.folded"
	done
}

# jit_named MODE KERNELNAME: what the comparison was about, when it was made:
# perf names the region its JIT map, the forged frame's mapping //anon
jit_named() {
	[ -f "$1.folded" ] || return 0
	grep -q ';\[anon\];\[perf-[0-9]*\.map\] ' "$1.folded"
	ok $? "$1: perf script names the executable $2 /tmp/perf-PID.map, the data mapping //anon"
}

case_of heap "[heap]" "code in the program break ([heap], executable)"
jit_named heap "[heap]"
case_of anon "//anon" "code in anonymous memory (//anon)"
case_of sysv "/SYSV" "code in a System V segment (/SYSV, SHM_EXEC)" s
jit_named sysv "/SYSV"
case_of memfd "/memfd:fk-code" "code in a memfd (/memfd:NAME (deleted))" s

# [vsyscall]: only a map perf synthesizes from /proc/PID/maps (perf record
# -p), a file to map__new (ip - start + pgoff, 0x400 for time()), which
# --addrs shows
if ! grep -q '\[vsyscall\]' /proc/self/maps; then
	skip "[vsyscall]" "this kernel maps no vsyscall page (vsyscall=none)"
else
	./mapx vsyscall &
	pid=$!
	sleep 0.3
	perf record -q -g -F 2000 -p $pid -o vsys.data -- sleep 0.4 > rec.log 2>&1
	wait $pid
	perf script -i vsys.data 2> /dev/null | "$FLAMEKIT" collapse --format perf --addrs > want.folded 2> /dev/null
	if grep -q '\[\[vsyscall\] <400>\]' want.folded; then
		run env PATH=/nonexistent "$FLAMEKIT" collapse --addrs vsys.data
		printf '%s\n' "$out" > got.folded
		same_file want.folded got.folded "[vsyscall] (--addrs): perf script's bytes ($(wc -l < want.folded) stacks)"
	else
		skip "[vsyscall]" "perf recorded no frame in the vsyscall page: $(head -1 rec.log)"
	fi
fi
done_testing
