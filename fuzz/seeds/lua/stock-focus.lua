--args {func = "fib"}
-- focus.lua: keep only the stacks that pass through a function, re-rooted
-- there (inferno's --base, the "focus" of pprof).
--
-- For each sample, the first frame (from the root) named args.func is
-- found; the frames below it are removed so that it becomes the root.
-- Samples that never pass through it are dropped.
--
-- args:
--   func: the exact frame name (required)
--
-- Example: args: {func: parse}
--   main;parse;lex 6  ->  parse;lex 6
--   main;render 3     ->  (dropped)

assert(args and type(args.func) == "string", "focus.lua needs args.func, the function to focus on")
local func = args.func

function sample(s)
	local i = s:find(func)
	if not i then
		return false
	end
	if i > 1 then
		s:remove(1, i - 1)
	end
end
--samples
main;0x7f3a2b1c;memcpy 2
main;parse+0x1a;lex+0x10/0x40 6
main;render;fib;fib;fib;add 4
java;start_thread;org/app/Thread.run;java/util/HashMap.get 5
swapper;start_kernel;do_idle;intel_idle_[k] 7
