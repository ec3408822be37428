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

-- The command line has it natively (the narrow filter): --base NAME
-- re-roots at the deepest NAME, as inferno does (this script at the first),
-- and --focus RE keeps the samples without re-rooting them.  This script
-- stays as an example of a sample filter.
