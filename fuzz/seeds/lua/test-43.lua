function frame(f)
	local x <close> = setmetatable({}, {__close = function() f:rename("closed") end})
end
--samples
main;0x7f3a2b1c;memcpy 2
main;parse+0x1a;lex+0x10/0x40 6
main;parse+0x2b;lex 4
main;render;fib;draw;fib 2
main;render;fib;fib;fib;add 4
swapper;start_kernel;cpu_startup_entry;do_idle;intel_idle_[k] 7
