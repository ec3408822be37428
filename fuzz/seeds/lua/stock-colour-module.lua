--args {colours = {app = "#112233"}}
-- colour-module.lua: colour frames by the module (binary or library) they
-- come from.
--
-- Kernel frames ([kernel.kallsyms], or kind "kernel") get args.kernel
-- (default "#e8743b").  Other frames with a module get a colour from a
-- fixed 8-colour table chosen by a hash of the module name, so the same
-- module has the same colour in every graph; args.colours maps module
-- names to colours explicitly.  Frames without a module are left as they
-- are.  Colours are "#rrggbb" or a palette name.
--
-- args (optional):
--   kernel:  colour of kernel frames
--   colours: {["libc.so.6"] = "#aabbcc", ...}

local table8 = {
	"#4e79a7", "#59a14f", "#9c755f", "#b07aa1",
	"#76b7b2", "#edc948", "#ff9da7", "#bab0ac",
}
local kernel = (args and args.kernel) or "#e8743b"
local fixed = (args and args.colours) or {}

-- FNV-1a, 32 bits: deterministic across runs (pairs() order is not).
local function hash(s)
	local h = 2166136261
	for i = 1, #s do
		h = ((h ~ s:byte(i)) * 16777619) & 0xffffffff
	end
	return h
end

function frame(f)
	local m = f.module
	if f.kind == "kernel" or m == "[kernel.kallsyms]" then
		f:colour(kernel)
	elseif m then
		f:colour(fixed[m] or table8[hash(m) % #table8 + 1])
	end
end
--samples
main;0x7f3a2b1c;memcpy 2
main;parse+0x1a;lex+0x10/0x40 6
main;render;fib;fib;fib;add 4
java;start_thread;org/app/Thread.run;java/util/HashMap.get 5
swapper;start_kernel;do_idle;intel_idle_[k] 7
