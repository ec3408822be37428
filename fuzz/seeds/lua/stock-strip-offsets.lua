--args {}
-- strip-offsets.lua: remove code offsets and raw addresses from frame names.
--
--   "main+0x1a"            -> "main"
--   "main+0x1a/0x40"       -> "main"       (perf's symoff form)
--   "0x7f3a2b1c"           -> "[unknown]"  (a bare address, 0x and 6+ hex digits)
--   "7f3a2b1c4d5e"         -> "[unknown]"  (a bare address, 8+ hex digits)
--
-- Frames whose names then coincide are merged by the engine.
--
-- args (optional):
--   unknown: the name given to bare addresses (default "[unknown]")

local unknown = (args and args.unknown) or "[unknown]"

function frame(f)
	local name = f.name
	local base = name:gsub("%+0x%x+/0x%x+$", ""):gsub("%+0x%x+$", "")
	if base:match("^0x%x%x%x%x%x%x+$") or base:match("^%x%x%x%x%x%x%x%x+$") and base:match("%d") then
		return unknown
	end
	if base ~= name then
		return base
	end
end
--samples
main;0x7f3a2b1c;memcpy 2
main;parse+0x1a;lex+0x10/0x40 6
main;render;fib;fib;fib;add 4
java;start_thread;org/app/Thread.run;java/util/HashMap.get 5
swapper;start_kernel;do_idle;intel_idle_[k] 7
