--args {patterns = {"^0x", "idle"}}
-- exclude.lua: drop the samples that have a frame matching a Lua pattern.
--
-- args:
--   pattern:  one Lua pattern (string.find syntax), or
--   patterns: a list of them; a sample is dropped if any frame matches any
--
-- Example: args: {patterns: ["^_raw_spin", "futex"]}
-- (For plain regular expressions the native grep filter is faster.)

local pats = {}
if args and args.pattern then pats[#pats + 1] = args.pattern end
if args and args.patterns then
	for _, p in ipairs(args.patterns) do pats[#pats + 1] = p end
end
assert(#pats > 0, "exclude.lua needs args.pattern or args.patterns")

local memo = {} -- frame name -> matches?

local function matches(name)
	local v = memo[name]
	if v == nil then
		v = false
		for _, p in ipairs(pats) do
			if name:find(p) then
				v = true
				break
			end
		end
		memo[name] = v
	end
	return v
end

function sample(s)
	for i = 1, #s do
		if matches(s[i]) then
			return false
		end
	end
end
--samples
main;0x7f3a2b1c;memcpy 2
main;parse+0x1a;lex+0x10/0x40 6
main;render;fib;fib;fib;add 4
java;start_thread;org/app/Thread.run;java/util/HashMap.get 5
swapper;start_kernel;do_idle;intel_idle_[k] 7
