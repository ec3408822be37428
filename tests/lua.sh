#!/bin/sh
# The lua filter: the script API, the sandbox, limits, and every stock
# script in lua/ with its exact folded output.
. "$FK_SRCDIR/tests/lib.sh"
D="$FK_SRCDIR/tests/data/lua"
L="$FK_SRCDIR/lua"
mkdir "$TMP/mods"
cp "$FK_BUILDDIR/tests/modules/.libs/meta.so" "$FK_BUILDDIR/tests/modules/.libs/dump.so" "$TMP/mods/"
cd "$TMP" || exit 1

# stock SCRIPT ARGS INPUT [FORMAT [OUTPUT]]: run one lua filter, stdout output
stock() {
	cat > "$TMP/s.yaml" <<EOF
inputs:
  - path: $3
    format: ${4:-folded}
filters:
  - plugin: lua
    script: $L/$1
    args: $2
outputs:
  - plugin: ${5:-folded}
    path: "-"
EOF
	run "$FLAMEKIT" run --plugin-dir "$TMP/mods" s.yaml
}

# script TEXT [INPUT]: run the script text as e.lua on the stacks (under
# $VG, when set)
script() {
	printf '%s\n' "$1" > "$TMP/e.lua"
	cat > "$TMP/e.yaml" <<EOF
inputs:
  - path: ${2:-$D/stacks.folded}
    format: ${3:-folded}
filters:
  - plugin: lua
    script: e.lua
outputs:
  - plugin: folded
    path: "-"
EOF
	run $VG "$FLAMEKIT" run --plugin-dir "$TMP/mods" e.yaml
}

# ---- stock scripts -------------------------------------------------------
stock drop-idle.lua '{}' "$D/stacks.folded"
is "$rc:$out" "0:main;0x7f3a2b1c;memcpy 2
main;7f3a2b1c4d5e 1
main;parse+0x1a;lex+0x10/0x40 6
main;parse+0x2b;lex 4
main;render;fib;add 1
main;render;fib;draw;fib 2
main;render;fib;fib;fib;add 4" "drop-idle.lua drops swapper and idle stacks"

stock drop-idle.lua '{extra: [memcpy, draw]}' "$D/stacks.folded"
is "$rc:$out" "0:main;7f3a2b1c4d5e 1
main;parse+0x1a;lex+0x10/0x40 6
main;parse+0x2b;lex 4
main;render;fib;add 1
main;render;fib;fib;fib;add 4" "drop-idle.lua args.extra"

stock strip-offsets.lua '{}' "$D/stacks.folded"
is "$rc:$out" "0:main;[unknown] 1
main;[unknown];memcpy 2
main;parse;lex 10
main;render;fib;add 1
main;render;fib;draw;fib 2
main;render;fib;fib;fib;add 4
swapper/1;secondary_startup_64;cpu_idle 3
swapper;start_kernel;cpu_startup_entry;do_idle;intel_idle_[k] 7" \
	"strip-offsets.lua: offsets gone, addresses unknown, stacks merged, _[k] kept"

stock strip-offsets.lua '{unknown: "??"}' "$D/stacks.folded"
is "$(echo "$out" | head -2)" "main;?? 1
main;??;memcpy 2" "strip-offsets.lua args.unknown"

stock short-names.lua '{}' "$D/java.folded"
is "$rc:$out" "0:java;ThreadPoolExecutor::runWorker;libc.so.6 2
java;start_thread;Thread.run;App.main([Ljava/lang/String:)V 3
java;start_thread;Thread.run;Valve\$Inner.invoke;HashMap.get 5
node;LazyCompile:*handler server.js:12;LazyCompile:~run x.mjs:3:9 4" \
	"short-names.lua: Java packages and JS directories dropped, libc.so.6 kept"

stock collapse-recursion.lua '{}' "$D/stacks.folded"
is "$rc:$(echo "$out" | grep render)" "0:main;render;fib;add 5
main;render;fib;draw;fib 2" "collapse-recursion.lua folds direct recursion only"

stock focus.lua '{func: render}' "$D/stacks.folded"
is "$rc:$out" "0:render;fib;add 1
render;fib;draw;fib 2
render;fib;fib;fib;add 4" "focus.lua keeps stacks through the function, re-rooted"

stock focus.lua '{func: fib}' "$D/stacks.folded"
is "$rc:$out" "0:fib;add 1
fib;draw;fib 2
fib;fib;fib;add 4" "focus.lua re-roots at the first occurrence"

stock focus.lua '{}' "$D/stacks.folded"
is "$rc:$err" "1:flamekit: [filter:lua] $L/focus.lua:15: focus.lua needs args.func, the function to focus on (running the script's main chunk)" \
	"focus.lua without args.func fails with its line"

stock cut-above.lua '{func: fib}' "$D/stacks.folded"
is "$rc:$out" "0:main;0x7f3a2b1c;memcpy 2
main;7f3a2b1c4d5e 1
main;parse+0x1a;lex+0x10/0x40 6
main;parse+0x2b;lex 4
main;render;fib 7
swapper/1;secondary_startup_64;cpu_idle 3
swapper;start_kernel;cpu_startup_entry;do_idle;intel_idle_[k] 7" "cut-above.lua makes the function the leaf"

stock exclude.lua '{patterns: ["^0x", "idle"]}' "$D/stacks.folded"
is "$rc:$out" "0:main;7f3a2b1c4d5e 1
main;parse+0x1a;lex+0x10/0x40 6
main;parse+0x2b;lex 4
main;render;fib;add 1
main;render;fib;draw;fib 2
main;render;fib;fib;fib;add 4" "exclude.lua drops stacks matching any pattern"

stock exclude.lua '{pattern: "%+0x"}' "$D/stacks.folded"
is "$rc:$(echo "$out" | grep -c parse)" "0:0" "exclude.lua args.pattern (Lua pattern syntax)"

stock per-thread.lua '{}' "$D/meta.txt" meta
is "$rc:$out" "0:[unknown];orphan 1
app-100/101;main;work;memcpy;copy_user_[k] 3
app-100/102;main;work;malloc 2
db-200/200;main;query;jit_loop_[j] 4" "per-thread.lua: COMM-PID/TID roots"

stock per-thread.lua '{by: process}' "$D/meta.txt" meta
is "$rc:$out" "0:[unknown];orphan 1
app-100;main;work;malloc 2
app-100;main;work;memcpy;copy_user_[k] 3
db-200;main;query;jit_loop_[j] 4" "per-thread.lua by process"

stock per-thread.lua '{by: fibre}' "$D/meta.txt" meta
is "$rc:$err" "1:flamekit: [filter:lua] $L/per-thread.lua:14: per-thread.lua: args.by must be thread, process or comm, not fibre (running the script's main chunk)" \
	"per-thread.lua rejects a bad args.by"

stock colour-module.lua '{colours: {app: "#112233"}}' "$D/meta.txt" meta dump
is "$rc:$out" "0:copy_user_[k] module=[kernel.kallsyms] colour=#e8743b
jit_loop_[j] module=- colour=-
main module=app colour=#112233
malloc module=libc.so.6 colour=#b07aa1
memcpy module=libc.so.6 colour=#b07aa1
orphan module=- colour=-
query module=db colour=#b07aa1
work module=app colour=#112233" "colour-module.lua: kernel, FNV-hashed and fixed colours"

stock colour-kernel.lua '{user: "#000000"}' "$D/meta.txt" meta dump
is "$rc:$(echo "$out" | grep -E '^(copy_user|jit_loop|work)')" "0:copy_user_[k] module=[kernel.kallsyms] colour=orange
jit_loop_[j] module=- colour=green
work module=app colour=#000000" "colour-kernel.lua colours by kind"

# ---- the script API ----------------------------------------------------------
script 'function frame(f)
	if f.name == "lex" then return "LEX" end
	if f.name == "memcpy" then return false end
	if f.name == "add" then f:rename("plus") end
	if f.name == "draw" then f:drop() end
end'
is "$rc:$(grep -v swapper "$TMP/out")" "0:main;0x7f3a2b1c 2
main;7f3a2b1c4d5e 1
main;parse+0x1a;lex+0x10/0x40 6
main;parse+0x2b;LEX 4
main;render;fib;fib 2
main;render;fib;fib;fib;plus 4
main;render;fib;plus 1" "frame(): return a name or false, f:rename(), f:drop()"

script 'function frame(f) print(f.name, f.kind, f.module) end' "$D/meta.txt" meta
is "$rc:$(echo "$err" | sort | head -3)" "0:flamekit: warning: [filter:lua] e.lua: copy_user	kernel	[kernel.kallsyms]
flamekit: warning: [filter:lua] e.lua: jit_loop	jit	nil
flamekit: warning: [filter:lua] e.lua: main	none	app" "f.name (without _[k]), f.kind, f.module; print goes to stderr"

script 'function sample(s)
	print(#s, s[1], s[-1], s[99], s.weight, s.pid, s.tid, s.comm, s.time, s:module(-1), s:kind(-1))
end' "$D/meta.txt" meta
is "$rc:$err" "0:flamekit: warning: [filter:lua] e.lua: 4	main	copy_user	nil	3.0	100	101	app	1.0	[kernel.kallsyms]	kernel
flamekit: warning: [filter:lua] e.lua: 3	main	malloc	nil	2.0	100	102	app	1.5	libc.so.6	none
flamekit: warning: [filter:lua] e.lua: 3	main	jit_loop	nil	4.0	200	200	db	2.0	nil	jit
flamekit: warning: [filter:lua] e.lua: 1	orphan	orphan	nil	1.0	nil	nil	nil	nil	nil	none" \
	"sample(): depth, frames by index from both ends, weight, pid/tid/comm/time, module, kind"

script 'function sample(s)
	if s:find("lex") then return false end
	if s[1] == "swapper" or s[1] == "swapper/1" then s:drop() return end
	s.weight = s.weight * 10
	local i = s:find("fib")
	if i then s:cut(i) s:insert(i + 1, "leaf") s:rename(1, "MAIN") s:colour(1, "hot") end
	if s:find("memcpy") then s:remove(1, 2) end
end'
is "$rc:$out" "0:MAIN;render;fib;leaf 70
main;7f3a2b1c4d5e 10
main;parse+0x1a;lex+0x10/0x40 60
memcpy 20" "sample(): drop, false, weight, cut, insert, rename, colour, remove range"

script 'function sample(s) return 1 end'
is "$rc:$err" "1:flamekit: [filter:lua] e.lua:1: sample() must return nil, true or false, not a number (for the stack swapper;start_kernel;cpu_startup_entry;do_idle;intel_idle)" \
	"a bad return value names the function's line and the stack"

script 'function sample(s) s:remove(9) end'
is "$rc:$err" "1:flamekit: [filter:lua] e.lua:1: frame index 9 out of range (the stack has 5 frames) (in sample() for the stack swapper;start_kernel;cpu_startup_entry;do_idle;intel_idle)" \
	"index out of range"

script 'function frame(f) f.name = "x" end'
is "$rc:$err" "1:flamekit: [filter:lua] e.lua:1: frame fields are read-only: use f:rename(), f:drop() or f:colour() (in frame() for frame \"swapper\")" \
	"frame fields are read-only"

# f:colour with a palette name, as flamekit-lua(7) says: chain draws a waker
# frame aqua and the others blue; an unknown name leaves the graph's colour.
printf 'main;a_[w] 3\nmain;b 2\n' > "$TMP/chain.folded"
fills() { # fills COLOUR: each frame's name and fill, drawn by svg after f:colour(COLOUR)
	printf 'function frame(f) if "%s" ~= "" then f:colour("%s") end end\n' "$1" "$1" > "$TMP/c.lua"
	printf 'inputs: [%s]\nfilters: [{plugin: lua, script: c.lua}]\noutputs: [{plugin: svg, path: "-"}]\n' \
		"$TMP/chain.folded" > "$TMP/c.yaml"
	"$FLAMEKIT" run "$TMP/c.yaml" 2>&1 | sed -n 's/^<title>\([^ ]*\) .* fill="\([^"]*\)".*/\1 \2/p' | sed 1d
}
is "$(fills chain)" "main rgb(126,126,243)
a rgb(63,176,176)
b rgb(110,110,230)" "f:colour(\"chain\"): waker frames aqua, others blue"
is "$(fills chain)" "$(fills blue | sed 's/^a .*/a rgb(63,176,176)/')" "f:colour(\"chain\"): blue as f:colour(\"blue\") but for the waker"
is "$(fills aqua | grep '^a ')" "a rgb(63,176,176)" "f:colour(\"chain\"): the waker as f:colour(\"aqua\")"
is "$(fills nosuch)" "$(fills '')" "f:colour(\"nosuch\"): an unknown palette name draws as no colour"

script 'function frame(f) f:colour("light blue") end'
is "$rc:$err" "1:flamekit: [filter:lua] e.lua:1: bad colour \"light blue\": give \"#rrggbb\" or a palette name such as \"hot\" (in frame() for frame \"swapper\")" \
	"colours are checked"

script 'function frame(f) return f.nosuch end'
is "$rc:$err" "1:flamekit: [filter:lua] e.lua:1: a frame has no field 'nosuch' (it has name, module, kind, rename, drop, colour) (in frame() for frame \"swapper\")" \
	"unknown frame field"

script 'kept = nil
function frame(f) kept = kept or f end
function sample(s) return kept.name end'
is "$rc:$err" "1:flamekit: [filter:lua] e.lua:3: a frame handle was used after its frame() call returned (in sample() for the stack swapper;start_kernel;cpu_startup_entry;do_idle;intel_idle)" \
	"a handle kept past its call is disarmed"

script 'local n = 0
function sample(s) n = n + 1; if n == 3 then error("third sample") end end'
is "$rc:$err" "1:flamekit: [filter:lua] e.lua:2: third sample (in sample() for the stack main;parse+0x1a;lex+0x10/0x40)" \
	"error() in sample(): script line and the stack being handled"

script 'function frame(f) error({}) end'
is "$rc:$err" "1:flamekit: [filter:lua] e.lua:1: error raised with a table value, not a message (in frame() for frame \"swapper\")" \
	"error() with a table"

script 'x = 1'
is "$rc:$err" "1:flamekit: [filter:lua] e.lua: the script defines neither frame(f) nor sample(s)" "a script with no callback"
script 'frame = 5'
is "$rc:$err" "1:flamekit: [filter:lua] e.lua: the global 'frame' must be a function, not a number" \
	"a frame global that is no function"
script 'function frame(f) end sample = "x"'
is "$rc:$err" "1:flamekit: [filter:lua] e.lua: the global 'sample' must be a function, not a string" \
	"a sample global that is no function"

script 'function frame(f'
is "$rc:$err" "2:flamekit: [filter:lua] e.lua:2: ')' expected near <eof>" "syntax error: the job is invalid (exit 2)"
run "$FLAMEKIT" run --check "$TMP/e.yaml"
is "$rc:$err" "2:flamekit: [filter:lua] $TMP/e.lua:2: ')' expected near <eof>" "run --check: a syntax error is a validation error (exit 2)"

# ---- the sandbox -------------------------------------------------------------------
script 'function frame(f) os.execute("touch '"$TMP"'/pwned") end'
is "$rc:$err" "1:flamekit: [filter:lua] e.lua:1: attempt to index a nil value (global 'os') (in frame() for frame \"swapper\")" "no os"
ok $([ ! -e "$TMP/pwned" ]; echo $?) "nothing was executed"

script 'function frame(f) return io.open("/etc/passwd"):read("a") end'
is "$rc:$err" "1:flamekit: [filter:lua] e.lua:1: attempt to index a nil value (global 'io') (in frame() for frame \"swapper\")" "no io"

script 'local os = require("os")'
is "$rc:$err" "1:flamekit: [filter:lua] e.lua:1: attempt to call a nil value (global 'require') (running the script's main chunk)" "no require"

script 'local f = load("return 1")'
is "$rc:$err" "1:flamekit: [filter:lua] e.lua:1: attempt to call a nil value (global 'load') (running the script's main chunk)" "no load"

script 'dofile("/etc/passwd")'
is "$rc:$err" "1:flamekit: [filter:lua] e.lua:1: attempt to call a nil value (global 'dofile') (running the script's main chunk)" "no dofile"

script 'local b = string.dump(function() end)'
is "$rc:$err" "1:flamekit: [filter:lua] e.lua:1: attempt to call a nil value (field 'dump') (running the script's main chunk)" "no string.dump"

script 'local b = ("").dump'
is "$rc:$err" "1:flamekit: [filter:lua] e.lua: the script defines neither frame(f) nor sample(s)" \
	"string methods reach the trimmed string table (dump is nil)"

script 'collectgarbage("stop")'
is "$rc:$err" "1:flamekit: [filter:lua] e.lua:1: attempt to call a nil value (global 'collectgarbage') (running the script's main chunk)" "no collectgarbage"

script 'function frame(f) getmetatable(f).__index = nil end'
is "$rc:$err" "1:flamekit: [filter:lua] e.lua:1: attempt to index a string value (in frame() for frame \"swapper\")" \
	"handle metatables are locked"

printf '\033LuaT\000\031\223\r\n\032\n' > "$TMP/bin.lua"
printf 'inputs: [{path: %s, format: folded}]\nfilters: [{plugin: lua, script: bin.lua}]\noutputs: [{plugin: folded, path: "-"}]\n' "$D/stacks.folded" > "$TMP/bin.yaml"
run "$FLAMEKIT" run bin.yaml
is "$rc:$err" "2:flamekit: [filter:lua] bin.lua: precompiled (binary) scripts are refused; give the Lua source" "bytecode is refused"

# ---- limits ----------------------------------------------------------------------
script 'function sample(s)
	while true do end
end'
is "$rc:$err" "1:flamekit: [filter:lua] e.lua:2: instruction limit of 10000000 exceeded (an endless loop?) (in sample() for the stack swapper;start_kernel;cpu_startup_entry;do_idle;intel_idle)" \
	"an endless loop is stopped"

script 'function frame(f)
	while true do pcall(function() while true do end end) end
end'
is "$rc:$err" "1:flamekit: [filter:lua] e.lua:2: instruction limit of 10000000 exceeded (an endless loop?) (in frame() for frame \"swapper\")" \
	"pcall cannot swallow the instruction limit"

script 'local t = {}
while true do t[#t + 1] = {} end'
is "$rc:$err" "1:flamekit: [filter:lua] e.lua:2: memory limit (64M) exceeded (running the script's main chunk)" "a memory bomb is stopped"

script 'function frame(f)
	local ok = pcall(string.rep, "x", 1 << 30)
	return "survived"
end'
is "$rc:$err" "1:flamekit: [filter:lua] e.lua:2: memory limit (64M) exceeded (in frame() for frame \"swapper\")" \
	"pcall cannot swallow the memory limit"

printf 'function frame(f) local s = 0 for i = 1, 5000 do s = s + i end end\n' > "$TMP/small.lua"
printf 'inputs: [{path: %s, format: folded}]\nfilters:\n  - plugin: lua\n    script: small.lua\n    options: {instruction-limit: 2000, memory-limit: 1M}\noutputs: [{plugin: folded, path: "-"}]\n' "$D/stacks.folded" > "$TMP/lim.yaml"
run "$FLAMEKIT" run lim.yaml
is "$rc:$err" "1:flamekit: [filter:lua] small.lua:1: instruction limit of 2000 exceeded (an endless loop?) (in frame() for frame \"swapper\")" \
	"instruction-limit is per filter"
run "$FLAMEKIT" run --set filters.0.options.memory-limit=12 lim.yaml
is "$rc:$err" "2:flamekit: [filter:lua] lim.yaml:3:5: memory-limit must be a size of at least 64K, like 64M, not \"12\"" \
	"memory-limit is checked"

# an error leaves no output behind
echo "old" > "$TMP/keep.folded"
printf 'inputs: [{path: %s, format: folded}]\nfilters: [{plugin: lua, script: e.lua}]\noutputs: [{plugin: folded, path: keep.folded}, {plugin: folded, path: new.folded}]\n' "$D/stacks.folded" > "$TMP/atomic.yaml"
printf 'function sample(s) if s[1] == "main" then error("late failure") end end\n' > "$TMP/e.lua"
run "$FLAMEKIT" run atomic.yaml
is "$rc:$err:$(cat "$TMP/keep.folded"):$(ls "$TMP" | grep -c 'new.folded\|\.tmp\.')" \
	"1:flamekit: [filter:lua] e.lua:1: late failure (in sample() for the stack main;parse+0x1a;lex+0x10/0x40):old:0" \
	"a script error writes no output and leaves the old files untouched"

# Lua cuts chunk names to 60 bytes: messages still carry the whole path
long="$TMP/a-directory-name-long-enough-to-pass-lua-idsize/and-then-some-more"
mkdir -p "$long"
printf 'x = 1\n\nfunction frame(f) error("boom") end\n' > "$long/s.lua"
printf 'inputs: [{path: %s, format: folded}]\nfilters: [{plugin: lua, script: %s/s.lua}]\noutputs: [{plugin: folded, path: "-"}]\n' "$D/stacks.folded" "$long" > "$TMP/long.yaml"
run "$FLAMEKIT" run long.yaml
is "$rc:$err" "1:flamekit: [filter:lua] $long/s.lua:3: boom (in frame() for frame \"swapper\")" "long script paths are not cut"

# ---- hostile scripts ---------------------------------------------------------------
# Each must end with a message naming e.lua:LINE and exit 1, or with the right
# output when what it does is legal; never a crash, a hang or a wrong graph.
IDLE='swapper;start_kernel;cpu_startup_entry;do_idle;intel_idle'

script 'function sample(s) pcall(function() while true do end end) end'
is "$rc:$err" "1:flamekit: [filter:lua] e.lua:1: instruction limit of 10000000 exceeded (an endless loop?) (in sample() for the stack $IDLE)" \
	"an endless loop inside pcall is stopped"

script 'local s = ("a"):rep(100000)
function frame(f) return s:find(".-b") end'
is "$rc:$err" "1:flamekit: [filter:lua] e.lua:2: instruction limit of 10000000 exceeded (string.find of a 100000-byte string may take 4e+10 pattern steps) (in frame() for frame \"swapper\")" \
	"a backtracking pattern the instruction hook cannot reach is charged before it runs"

script 'function frame(f) return (f.name:gsub("^(.-)_(.*)$", "%2")) end'
is "$rc:$(grep -c intel "$TMP/out")" "0:0" "patterns on frame names cost next to nothing"

script 'function frame(f) local x = string.rep("x", 1 << 40) end'
is "$rc:$err" "1:flamekit: [filter:lua] e.lua:1: resulting string too large (in frame() for frame \"swapper\")" \
	"string.rep of a terabyte is refused"

script 'function frame(f) local x = string.rep("xy", 1 << 20, ",") .. string.rep("a", 1 << 26) end'
is "$rc:$err" "1:flamekit: [filter:lua] e.lua:1: memory limit (64M) exceeded (in frame() for frame \"swapper\")" \
	"a string.rep memory bomb is stopped"

script 'local function r(s) return (s:gsub(".", r)) end
function frame(f) return r(f.name) end'
is "$rc:$err" "1:flamekit: [filter:lua] e.lua:1: C stack overflow (in frame() for frame \"swapper\")" \
	"string.gsub recursion: C stack overflow, with the script line"

script 'local function c(a, b) table.sort({2, 1}, c) return a < b end
function sample(s) table.sort({2, 1}, c) end'
is "$rc:$err" "1:flamekit: [filter:lua] e.lua:1: C stack overflow (in sample() for the stack $IDLE)" \
	"table.sort comparator recursion: C stack overflow"

script 'function sample(s) table.sort({3, 2, 1, 5, 4, 7, 6}, function(a, b) return true end) end'
is "$rc:$err" "1:flamekit: [filter:lua] e.lua:1: invalid order function for sorting (in sample() for the stack $IDLE)" \
	"an inconsistent comparator"

script 'local function r(n) return r(n + 1) + 1 end
function frame(f) return r(0) end'
is "$rc:$err" "1:flamekit: [filter:lua] e.lua:1: stack overflow (in frame() for frame \"swapper\")" \
	"Lua recursion: stack overflow"

script 'local function n() return coroutine.wrap(n)() end
function frame(f) return n() end'
is "$rc:$err" "1:flamekit: [filter:lua] e.lua:1: attempt to index a nil value (global 'coroutine') (in frame() for frame \"swapper\")" \
	"no coroutines"

script 'kept = nil
function sample(s) if kept then kept:cut(1) end kept = s end'
is "$rc:$err" "1:flamekit: [filter:lua] e.lua:2: a sample handle was used after its sample() call returned (in sample() for the stack swapper/1;secondary_startup_64;cpu_idle)" \
	"a sample handle kept in a global is disarmed"

script 'kept = nil
function frame(f) if kept then kept:rename("x") end kept = f end'
is "$rc:$err" "1:flamekit: [filter:lua] e.lua:2: a frame handle was used after its frame() call returned (in frame() for frame \"start_kernel\")" \
	"a frame handle kept in a global is disarmed"

script 'function frame(f) setmetatable(f, {}) end'
is "$rc:$err" "1:flamekit: [filter:lua] e.lua:1: bad argument #1 to 'setmetatable' (table expected, got flamekit.frame) (in frame() for frame \"swapper\")" \
	"setmetatable on a handle"

script 'function sample(s) if getmetatable(s) ~= "locked" then error("unlocked") end end'
is "$rc:$(grep -c . "$TMP/out")" "0:9" "getmetatable on a handle gives the lock, nothing else"

script 'setmetatable({}, {__gc = function() while true do end end})'
is "$rc:$err" "1:flamekit: [filter:lua] e.lua:1: setmetatable: __gc metamethods are not allowed in filter scripts (finalizers run outside the instruction limit) (running the script's main chunk)" \
	"__gc is refused: finalizers run with the instruction hook off"

script 'function frame(f)
	local x <close> = setmetatable({}, {__close = function() f:rename("closed") end})
end'
is "$rc:$(head -1 "$TMP/out")" "0:closed;closed 1" "__close runs inside the call, with the handle still valid"

script 'function frame(f)
	local x <close> = setmetatable({}, {__close = function() error("in close") end})
end'
is "$rc:$err" "1:flamekit: [filter:lua] e.lua:2: in close (in frame() for frame \"swapper\")" "an error in __close"

script 'function frame(f) error() end'
is "$rc:$err" "1:flamekit: [filter:lua] e.lua:1: error raised with a nil value, not a message (in frame() for frame \"swapper\")" \
	"error() with nil"

script 'function frame(f) error("zero", 0) end'
is "$rc:$err" "1:flamekit: [filter:lua] e.lua:1: zero (in frame() for frame \"swapper\")" \
	"error(msg, 0) still names the script line"

script 'function frame(f) error(("e"):rep(1 << 20)) end'
is "$rc:$(printf '%s' "$err" | wc -c):$(printf '%s' "$err" | cut -c1-40)" \
	"1:1079:flamekit: [filter:lua] e.lua:1: eeeeeeee" "error() with a 1 MB message is cut to 1 KB"

script 'function frame(f) return {} end'
is "$rc:$err" "1:flamekit: [filter:lua] e.lua:1: frame() must return nil, true, false or a new name, not a table (for frame \"swapper\")" \
	"frame() returning a table"

script 'function frame(f) return 1.5 end'
is "$rc:$err" "1:flamekit: [filter:lua] e.lua:1: frame() must return nil, true, false or a new name, not a number (for frame \"swapper\")" \
	"frame() returning a number"

script 'function frame(f) return frame end'
is "$rc:$err" "1:flamekit: [filter:lua] e.lua:1: frame() must return nil, true, false or a new name, not a function (for frame \"swapper\")" \
	"frame() returning a function"

script 'function sample(s) return s end'
is "$rc:$err" "1:flamekit: [filter:lua] e.lua:1: sample() must return nil, true or false, not a userdata (for the stack $IDLE)" \
	"sample() returning its handle"

script 'function frame(f) return true end'
is "$rc:$(cat "$TMP/out")" "0:$(cat "$D/stacks.folded" | sed 's/$//' | "$FLAMEKIT" collapse --format folded - 2>/dev/null)" \
	"frame() returning true keeps every frame"

script 'function frame(f) if f.name == "add" then return ("n"):rep(10 << 20) end end'
is "$rc:$(awk '{ print length($0) }' "$TMP/out" | sort -n | tail -2 | tr '\n' ' ')" \
	"0:10485778 10485786 " "renaming to a 10 MB name (main;render;fib;NAME 1 and main;render;fib;fib;fib;NAME 4)"

script 'function frame(f) if f.name == "lex" then return "a\0b;c\nd" end end'
is "$rc:$(grep -a 'parse+0x2b' "$TMP/out" | tr '\000' '@')" "0:main;parse+0x2b;a@b:c d 4" \
	"frame() names: NUL kept, ';' becomes ':', a newline a space"

script 'function sample(s) s:rename(1, "x;y\nz") s:insert(1, "p\0q") end'
is "$rc:$(head -1 "$TMP/out" | tr '\000' '@')" "0:p@q;x:y z;0x7f3a2b1c;memcpy 2" \
	"sample() names: the same cleaning for rename and insert"

script 'function frame(f) debug.sethook() end'
is "$rc:$err" "1:flamekit: [filter:lua] e.lua:1: attempt to index a nil value (global 'debug') (in frame() for frame \"swapper\")" "no debug"

script 'function frame(f) assert(package == nil and require == nil and io == nil and os == nil and debug == nil and load == nil and loadfile == nil and dofile == nil and coroutine == nil and string.dump == nil) end'
is "$rc:$err" "0:" "package, require, io, os, debug, load, loadfile, dofile, coroutine, string.dump: none reachable"

printf 'a;b 1\na;c 1\n' > "$TMP/w.folded"
script 'function sample(s) s.weight = 1e-320 s.weight = 6 end' "$TMP/w.folded"
is "$rc:$out" "0:a;b 6
a;c 6" "a weight set from 1e-320 to 6 is 6, not NaN"

# ---- limits that cannot be escaped ------------------------------------------------
# Each script loops where the instruction hook used to be off or blind (a
# message handler, __close, __tostring, a C loop); each must end, within a
# minute, with the limit error of its line.
TO=
command -v timeout > /dev/null 2>&1 && TO="timeout 60"
# limited LIMIT TEXT [--check]: e.lua under instruction-limit LIMIT
limited() {
	printf '%s\n' "$2" > "$TMP/e.lua"
	printf 'inputs: [{path: %s, format: folded}]\nfilters:\n  - plugin: lua\n    script: e.lua\n    options: {instruction-limit: %s}\noutputs: [{plugin: folded, path: "-"}]\n' \
		"$D/stacks.folded" "$1" > "$TMP/lim.yaml"
	run $TO "$FLAMEKIT" run $3 lim.yaml
}
MAIN="(running the script's main chunk)"
LIM1000="e.lua:1: instruction limit of 1000 exceeded"

XP='xpcall(function() while true do end end, function() while true do end end)'
limited 1000 "$XP"
is "$rc:$err" "1:flamekit: [filter:lua] $LIM1000 (an endless loop?) $MAIN" \
	"xpcall with an endless message handler stops at the limit"
limited 1000 "$XP" --check
is "$rc:$err" "1:flamekit: [filter:lua] $LIM1000 (an endless loop?) $MAIN" \
	"... and under run --check"

limited 1000 'function frame(f) xpcall(error, function() while true do end end) end'
is "$rc:$err" "1:flamekit: [filter:lua] $LIM1000 (an endless loop?) (in frame() for frame \"swapper\")" \
	"a handler that loops on an ordinary error stops at the limit"

limited 1000 'function frame(f) local x <close> = setmetatable({}, {__close = function() while true do end end}) end'
is "$rc:$err" "1:flamekit: [filter:lua] $LIM1000 (an endless loop?) (in frame() for frame \"swapper\")" \
	"an endless __close stops at the limit"

limited 1000 'function frame(f) error(setmetatable({}, {__tostring = function() while true do end end})) end'
is "$rc:$err" "1:flamekit: [filter:lua] $LIM1000 (an endless loop?) (in frame() for frame \"swapper\")" \
	"an error object whose __tostring loops stops at the limit"

limited 1000 'function frame(f) while true do pcall(function() while true do pcall(error) end end) end end'
is "$rc:$err" "1:flamekit: [filter:lua] $LIM1000 (an endless loop?) (in frame() for frame \"swapper\")" \
	"nested pcall loops that swallow the limit error stop at it"

limited 1000 'function frame(f) coroutine.wrap(function() while true do end end)() end'
is "$rc:$err" "1:flamekit: [filter:lua] e.lua:1: attempt to index a nil value (global 'coroutine') (in frame() for frame \"swapper\")" \
	"a coroutine loop cannot start: no coroutines"

limited 1000 'local mt = {} local t = setmetatable({}, mt) mt.__gc = function() while true do end end
function frame(f) end'
is "$rc:$out" "0:$(LC_ALL=C sort "$D/stacks.folded")" \
	"__gc added after setmetatable is never a finalizer"

limited 1000 'function frame(f) local x = string.rep("", 1 << 62) end'
is "$rc:$err" "1:flamekit: [filter:lua] $LIM1000 (string.rep of 4611686018427387904 empty copies) (in frame() for frame \"swapper\")" \
	"string.rep of nothing, 2^62 times, is charged before it runs"

limited 1000 'function frame(f) table.move({}, 1, 1 << 50, 2) end'
is "$rc:$err" "1:flamekit: [filter:lua] $LIM1000 (table.move of 1125899906842624 elements) (in frame() for frame \"swapper\")" \
	"table.move of 2^50 nils is charged before it runs"

limited 1000 'function frame(f) table.remove(setmetatable({}, {__len = function() return 1 << 62 end}), 1) end'
is "$rc:$err" "1:flamekit: [filter:lua] e.lua:1: table.remove: tables with a __len metamethod are not allowed in filter scripts (the length is read in C, outside the instruction limit) (in frame() for frame \"swapper\")" \
	"table.remove of a table whose __len lies is refused"

limited 10000000 'local s = ("x"):rep(1 << 24)
function frame(f) for i = 1, 1000000 do utf8.len(s) end end'
is "$rc:$err" "1:flamekit: [filter:lua] e.lua:2: instruction limit of 10000000 exceeded (utf8.len of 16777216 bytes) (in frame() for frame \"swapper\")" \
	"a scan of a 16 MB string costs its bytes"

limited 100000 'function frame(f)
	if f.name ~= "add" then return end
	local t = {} for i = 1, 50 do t[i] = 51 - i end
	table.sort(t) table.insert(t, 1, 0) table.remove(t)
	return table.concat(t, ",", 1, 3) .. ("x"):rep(2) .. select("#", table.unpack(t)) .. (f.name:find("d") or "-")
end'
is "$rc:$(grep xx "$TMP/out")" "0:main;render;fib;0,1,2xx502 1
main;render;fib;fib;fib;0,1,2xx502 4" \
	"the charged library functions still do their work"

limited 100000 'local ok, m = xpcall(error, function(m) return "handled " .. m end, "x", 0)
local a, b, c = xpcall(function(p, q) return p + q, "!" end, print, 40, 2)
function frame(f) if f.name == "add" then return m .. tostring(ok) .. tostring(a) .. b .. c end end'
is "$rc:$(grep handled "$TMP/out")" "0:main;render;fib;fib;fib;handled xfalsetrue42! 4
main;render;fib;handled xfalsetrue42! 1" "xpcall's handler and results, below the limit"

limited 100000 'function frame(f) local s = ("x"):sub({}) end'
is "$rc:$err" "1:flamekit: [filter:lua] e.lua:1: bad argument #1 to 'sub' (number expected, got table) (in frame() for frame \"swapper\")" \
	"argument errors of charged functions still name them (a method call)"
limited 100000 'function frame(f) local s = string.sub("x", {}) end'
is "$rc:$err" "1:flamekit: [filter:lua] e.lua:1: bad argument #2 to 'sub' (number expected, got table) (in frame() for frame \"swapper\")" \
	"argument errors of charged functions still name them (a function call)"

# the names a script gives the engine count against memory-limit
for i in $(seq 1 40); do echo "main;f$i 1"; done > "$TMP/forty.folded"
printf 'local n = 0\nfunction sample(s)\n\tn = n + 1\n\ts:rename(2, string.rep("x", 8 << 20) .. n)\nend\n' > "$TMP/e.lua"
printf 'inputs: [{path: forty.folded, format: folded}]\nfilters: [{plugin: lua, script: e.lua}]\noutputs: [{plugin: folded, path: "-"}]\n' > "$TMP/names.yaml"
TIME=
# (a sanitizer build's own shadow memory and quarantine make RSS meaningless)
[ -x /usr/bin/time ] && ! grep -qa __asan_init "$FLAMEKIT" && TIME="/usr/bin/time -o $TMP/rss -f %M"
run $TO $TIME "$FLAMEKIT" run names.yaml
is "$rc:$err" "1:flamekit: [filter:lua] e.lua:4: memory limit (64M) exceeded (in sample() for the stack main;f7)" \
	"forty samples renamed to 8 MB names: the memory limit"
if [ -n "$TIME" ]; then
	# a loose bound: the 64 MB heap and the engine's copies (371 MB before)
	ok "$([ "$(tail -1 "$TMP/rss")" -lt 200000 ] && echo 0 || echo 1)" "... within 200 MB of RSS ($(tail -1 "$TMP/rss") KB)"
else
	skip "RSS of the 8 MB names" "no /usr/bin/time, or a sanitizer build"
fi
# on_forty SCRIPT: the job names.yaml (the forty samples) with SCRIPT, printf's
# format, as its e.lua (run's $rc, $out and $err)
on_forty() {
	printf "$1" > "$TMP/e.lua"
	run $TO "$FLAMEKIT" run names.yaml
}
on_forty 'local n = 0\nfunction frame(f)\n\tn = n + 1\n\treturn string.rep("y", 8 << 20) .. n\nend\n'
is "$rc:$err" "1:flamekit: [filter:lua] e.lua:4: memory limit (64M) exceeded (in frame() for frame \"f6\")" \
	"frame() returning distinct 8 MB names: the memory limit"

# the frames a script adds live in the engine's tree: at most 4096 a call
# (a million a sample, forty samples: 1.6 GB and 57 s before), and an
# insert pays for the frames it moves (a million at position 2: hours)
on_forty 'function sample(s)\n\tfor i = 1, 1000000 do s:insert(#s + 1, "x") end\nend\n'
is "$rc:${err%% (in sample()*}" "1:flamekit: [filter:lua] e.lua:2: s:insert: a sample() call may add at most 4096 frames" \
	"a million frames inserted per sample: refused at 4096"
on_forty 'function sample(s)\n\tfor i = 1, 3000 do s:insert(2, "x") end\n\tfor i = 1, 100000 do s:insert(2, "y") s:remove(2) end\nend\n'
is "$rc:${err%% (in sample()*}" "1:flamekit: [filter:lua] e.lua:3: instruction limit of 10000000 exceeded (s:insert moving 3001 frames)" \
	"inserting at the root of a 3000-frame stack, again and again: each insert pays for the frames it moves"
on_forty 'function sample(s)\n\tfor i = 1, 4000 do s:insert(2, "x") end\n\tfor i = 1, 100000 do s:find("nothing") end\nend\n'
is "$rc:${err%% (in sample()*}" "1:flamekit: [filter:lua] e.lua:3: instruction limit of 10000000 exceeded (s:find over 4002 frames)" \
	"s:find over a deep stack pays for the frames it looks at"


# ---- single instructions whose cost grows with the data -----------------------
# == and < on two long strings read them whole in one VM instruction, as do
# a long string key found through an equal string, a call passing on a
# million varargs and next() over an empty array part: no instruction
# count bounds them (within 10000000 instructions, hours), so time-limit
# does (CPU seconds per call, read in the count hook).  time-limit: 1 and
# the hang guard: each ends with its error, whatever the machine's speed.
# timed LIMITS TEXT [--check]: e.lua under the options LIMITS
timed() {
	printf '%s\n' "$2" > "$TMP/e.lua"
	printf 'inputs: [{path: %s, format: folded}]\nfilters:\n  - plugin: lua\n    script: e.lua\n    options: {%s}\noutputs: [{plugin: folded, path: "-"}]\n' \
		"$D/stacks.folded" "$1" > "$TMP/lim.yaml"
	run $TO "$FLAMEKIT" run $3 lim.yaml
}
CMP='local a, b = ("x"):rep(1 << 24), ("x"):rep(1 << 24)
while true do local c = a == b end'
timed 'time-limit: 1' "$CMP"
is "$rc:$err" "1:flamekit: [filter:lua] e.lua:2: time limit (1s) exceeded $MAIN" \
	"== of two 16 MB strings in a loop stops at the time limit"
timed 'time-limit: 1' "$CMP" --check
is "$rc:$err" "1:flamekit: [filter:lua] e.lua:2: time limit (1s) exceeded $MAIN" \
	"... and under run --check"
timed 'time-limit: 1' 'local a, b = ("x"):rep(1 << 24), ("x"):rep(1 << 24)
while true do pcall(function() while true do local c = a == b end end) end'
is "$rc:$err" "1:flamekit: [filter:lua] e.lua:2: time limit (1s) exceeded $MAIN" \
	"pcall cannot swallow the time limit"
timed 'time-limit: 1' 'local a, b = ("\0"):rep(1 << 22), ("\0"):rep(1 << 22)
function frame(f) while true do local c = a < b end end'
is "$rc:$err" "1:flamekit: [filter:lua] e.lua:2: time limit (1s) exceeded (in frame() for frame \"swapper\")" \
	"< of two 4 MB strings of NUL bytes (strcoll piece by piece) stops at the time limit"
timed 'time-limit: 1' 'local a, b = ("x"):rep(1 << 24), ("x"):rep(1 << 24)
local t = {[a] = 1}
function sample(s) while true do local c = t[b] end end'
is "$rc:$err" "1:flamekit: [filter:lua] e.lua:3: time limit (1s) exceeded (in sample() for the stack $IDLE)" \
	"a 16 MB key found through an equal string, in a loop, stops at the time limit"
timed 'time-limit: 1' 'local t = {} for i = 1, 200000 do t[i] = i end
local function f(...) local function g(...) return 1 end while true do g(...) end end
f(table.unpack(t))'
is "$rc:$err" "1:flamekit: [filter:lua] e.lua:2: time limit (1s) exceeded $MAIN" \
	"passing on 200,000 varargs in a loop stops at the time limit"
timed 'time-limit: 1' 'local t = {} for i = 1, 1000000 do t[i] = i end
for i = 1, 999999 do t[i] = nil end
while true do local k = next(t) end'
is "$rc:$err" "1:flamekit: [filter:lua] e.lua:3: time limit (1s) exceeded $MAIN" \
	"next() over an empty million-slot array, in a loop, stops at the time limit"
timed 'time-limit: 1, instruction-limit: 100000' 'local a, b = ("x"):rep(1 << 16), ("x"):rep(1 << 16)
while true do local c = a == b end'
is "$rc:$err" "1:flamekit: [filter:lua] e.lua:2: instruction limit of 100000 exceeded (an endless loop?) $MAIN" \
	"the instruction limit still comes first when it is near"
timed 'time-limit: 0, instruction-limit: 1000' 'while true do end'
is "$rc:$err" "1:flamekit: [filter:lua] $LIM1000 (an endless loop?) $MAIN" "time-limit: 0 turns the time limit off"
timed 'time-limit: -1' 'function frame(f) end' --check
is "$rc:$err" "2:flamekit: [filter:lua] lim.yaml:3:5: time-limit must be a number of seconds from 0 (none) to 1000000, not -1" \
	"a negative time-limit is refused"

# the C loops behind single calls: table.sort compares in C, each
# comparison reading two strings whole; math.max, math.min and select read
# every argument (at the default instruction limit, hours before, each)
limited 10000000 'local a, b = ("\0"):rep(1 << 20), ("\0"):rep(1 << 20)
local t = {} for i = 1, 20000 do t[i] = i % 2 == 0 and a or b end
table.sort(t)'
is "$rc:$err" "1:flamekit: [filter:lua] e.lua:3: instruction limit of 10000000 exceeded (table.sort of 20000 elements, strings of up to 1048576 bytes) $MAIN" \
	"table.sort of long strings pays for the bytes each comparison reads"
limited 1000000 'local t = {} for i = 1, 200000 do t[i] = i end
local function f(...) while true do math.max(...) end end
f(table.unpack(t))'
is "$rc:$err" "1:flamekit: [filter:lua] e.lua:2: instruction limit of 1000000 exceeded (math.max of 200000 arguments) $MAIN" \
	"math.max of 200,000 arguments pays for each"
limited 1000000 'local t = {} for i = 1, 200000 do t[i] = i end
local function f(...) while true do math.min(...) select(-1, ...) end end
f(table.unpack(t))'
is "$rc:$err" "1:flamekit: [filter:lua] e.lua:2: instruction limit of 1000000 exceeded (math.min of 200000 arguments) $MAIN" \
	"math.min of 200,000 arguments pays for each"
limited 1000000 'local t = {} for i = 1, 200000 do t[i] = i end
local function f(...) while true do select(-1, ...) end end
f(table.unpack(t))'
is "$rc:$err" "1:flamekit: [filter:lua] e.lua:2: instruction limit of 1000000 exceeded (select of 200001 arguments) $MAIN" \
	"select over 200,000 arguments pays for each"
limited 100000 'local t = {"b", "c", "a"} table.sort(t)
local n, x = select("#", 7, 8, 9), select(-1, 7, 8, 9)
function frame(f) if f.name == "add" then return table.concat(t) .. n .. x .. math.max(3, 9, 1) .. math.min(4, 2) end end'
is "$rc:$(grep abc "$TMP/out")" "0:main;render;fib;abc3992 1
main;render;fib;fib;fib;abc3992 4" "table.sort, select, math.max and math.min still do their work"

# Frames a filter inserts grow the sink's frame ids beyond its frame hashes'
# array; a deeper stack pushed after them must grow both (it once wrote the
# hashes past their block: valgrind's or ASan's report, and exit 9).
awk 'BEGIN { print "a 1"; s = "f0"; for (i = 1; i < 50; i++) s = s ";f" i; print s " 1" }' > "$TMP/deep.folded"
VG=
command -v valgrind > /dev/null 2>&1 && ! grep -qa __asan_init "$FLAMEKIT" &&
	VG="valgrind -q --error-exitcode=9"
script 'function sample(s) for k = 1, 100 do s:insert(1, "x" .. k) end end' "$TMP/deep.folded"
VG=
want=$(awk 'BEGIN { p = "x100"; for (k = 99; k >= 1; k--) p = p ";x" k } { print p ";" $0 }' "$TMP/deep.folded")
is "$rc:$out:$err" "0:$want:" "frames inserted by a filter, then a deeper stack: both frame arrays grow"

done_testing
