--args {}
-- short-names.lua: shorten Java and JavaScript frame names.
--
-- Java: the package is dropped, the class and method kept, with either
-- separator, and anything after the method (a signature) kept:
--   "java/util/HashMap.get"                -> "HashMap.get"
--   "org.apache.catalina.Valve$Inner.run"  -> "Valve$Inner.run"
--   "com/example/App.main([Ljava/lang/String;)V" -> "App.main([Ljava/lang/String;)V"
--   "Ljava/util/HashMap;::get"             -> "HashMap::get" (perf-map-agent;
--                                            the engine turns the ; into :)
-- A package is a run of lower-case components ending in '.' or '/', and the
-- class must start with an upper-case letter, so "libc.so.6" is left alone.
--
-- JavaScript (node, V8 perf maps): the directory of the script is dropped:
--   "handler /srv/app/src/server.js:12"    -> "handler server.js:12"
--   "LazyCompile:*run file:///srv/app/x.mjs:3:9" -> "LazyCompile:*run x.mjs:3:9"
--
-- No args.

function frame(f)
	local name = f.name
	local cls, method = name:match("^L[%w_$/]-([%w_$]+)[;:](::.+)$")
	if cls then
		return cls .. method
	end
	-- strip lower-case package components while a Class.method follows
	local tail = name
	while true do
		local rest = tail:match("^[%l_][%w_]*[./](.+)$")
		if not rest then
			break
		end
		if rest:match("^[%u$][%w_$]*%.[%w_$<>]") then
			return rest
		end
		tail = rest
	end
	local fn, file = name:match("^(.- )[^ ]*/([^/ ]+)$")
	if fn then
		return fn .. file
	end
end
--samples
main;0x7f3a2b1c;memcpy 2
main;parse+0x1a;lex+0x10/0x40 6
main;render;fib;fib;fib;add 4
java;start_thread;org/app/Thread.run;java/util/HashMap.get 5
swapper;start_kernel;do_idle;intel_idle_[k] 7
