--args {}
-- colour-kernel.lua: colour frames by where they run: kernel, JIT-compiled,
-- inlined, or user code.
--
-- The kind comes from the frame's annotation (_[k], _[j], _[i] in folded
-- text).  Defaults, all overridable through args:
--   kernel = "orange", jit = "green", inline = "aqua", waker = "blue",
--   user = nil (user frames keep the renderer's colour)
-- Colours are "#rrggbb" or a palette name.
--
-- Example: args: {kernel: "#ff0000", user: "yellow"}

local a = args or {}
local by_kind = {
	kernel = a.kernel or "orange",
	jit = a.jit or "green",
	inline = a.inline or "aqua",
	waker = a.waker or "blue",
	none = a.user,
}

function frame(f)
	local c = by_kind[f.kind]
	if c then
		f:colour(c)
	end
end
--samples
main;0x7f3a2b1c;memcpy 2
main;parse+0x1a;lex+0x10/0x40 6
main;render;fib;fib;fib;add 4
java;start_thread;org/app/Thread.run;java/util/HashMap.get 5
swapper;start_kernel;do_idle;intel_idle_[k] 7
