-- collapse-recursion.lua: fold direct recursion into one frame.
--
-- The command line does this natively: --collapse-recursion (the narrow
-- filter).  This script stays as an example of a sample filter.
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
