function sample(s)
	if s:find("lex") then return false end
	if s[1] == "swapper" or s[1] == "swapper/1" then s:drop() return end
	s.weight = s.weight * 10
	local i = s:find("fib")
	if i then s:cut(i) s:insert(i + 1, "leaf") s:rename(1, "MAIN") s:colour(1, "hot") end
	if s:find("memcpy") then s:remove(1, 2) end
end
--samples
main;0x7f3a2b1c;memcpy 2
main;parse+0x1a;lex+0x10/0x40 6
main;parse+0x2b;lex 4
main;render;fib;draw;fib 2
main;render;fib;fib;fib;add 4
swapper;start_kernel;cpu_startup_entry;do_idle;intel_idle_[k] 7
