--args {func = "fib"}
-- cut-above.lua: cut every stack above a function, so that the function
-- becomes the leaf (inferno's --skip-after idea, seen from the top: the
-- callees of the function are folded into it).
--
-- For each sample, the first frame (from the root) named args.func is
-- found and every frame after it is removed; its callees' time becomes the
-- function's own.  Samples that do not pass through it are unchanged.
--
-- args:
--   func: the exact frame name (required)
--
-- Example: args: {func: parse}
--   main;parse;lex 6  ->  main;parse 6
--   main;render 3     ->  main;render 3

assert(args and type(args.func) == "string", "cut-above.lua needs args.func, the function to cut above")
local func = args.func

function sample(s)
	local i = s:find(func)
	if i then
		s:cut(i)
	end
end
--samples
main;0x7f3a2b1c;memcpy 2
main;parse+0x1a;lex+0x10/0x40 6
main;render;fib;fib;fib;add 4
java;start_thread;org/app/Thread.run;java/util/HashMap.get 5
swapper;start_kernel;do_idle;intel_idle_[k] 7
