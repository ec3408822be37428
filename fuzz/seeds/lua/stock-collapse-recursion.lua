--args {}
-- collapse-recursion.lua: fold direct recursion into one frame.
--
-- Consecutive frames with the same name become one, so a recursive
-- function shows as a single box whose width is its total time:
--   main;fib;fib;fib;add 4  ->  main;fib;add 4
-- Indirect recursion (a;b;a) is left alone.  No args.

function sample(s)
	for i = #s, 2, -1 do
		if s[i] == s[i - 1] then
			s:remove(i)
		end
	end
end
--samples
main;0x7f3a2b1c;memcpy 2
main;parse+0x1a;lex+0x10/0x40 6
main;render;fib;fib;fib;add 4
java;start_thread;org/app/Thread.run;java/util/HashMap.get 5
swapper;start_kernel;do_idle;intel_idle_[k] 7
