--args {}
-- per-thread.lua: one root frame per thread (or per process), like
-- stackcollapse-perf.pl's --tid and --pid.
--
-- A frame is inserted below each stack's root:
--   by = "thread" (default): "COMM-PID/TID"
--   by = "process":          "COMM-PID"
--   by = "comm":             "COMM"
-- When the input did not record the thread, process or command, the
-- missing parts are left out, and "[unknown]" stands for no information.
--
-- Example: args: {by: process}

local by = (args and args.by) or "thread"
assert(by == "thread" or by == "process" or by == "comm",
	"per-thread.lua: args.by must be thread, process or comm, not " .. tostring(by))

function sample(s)
	local name = s.comm
	if by ~= "comm" and s.pid then
		name = (name or "") .. "-" .. s.pid
		if by == "thread" and s.tid then
			name = name .. "/" .. s.tid
		end
	end
	s:insert(1, name or "[unknown]")
end
--samples
main;0x7f3a2b1c;memcpy 2
main;parse+0x1a;lex+0x10/0x40 6
main;render;fib;fib;fib;add 4
java;start_thread;org/app/Thread.run;java/util/HashMap.get 5
swapper;start_kernel;do_idle;intel_idle_[k] 7
