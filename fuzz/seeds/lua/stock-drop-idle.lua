--args {extra = {"memcpy"}}
-- drop-idle.lua: drop the samples of idle CPUs.
--
-- A sample is dropped when any frame of its stack is a kernel idle
-- function (cpu_idle, do_idle, intel_idle, ...) or a swapper thread
-- (swapper, swapper/0, ...), as stackcollapse-perf.pl's idle filter does.
-- Other samples are kept unchanged.
--
-- args (optional):
--   extra: a list of more frame names counted as idle
--
-- Example job entry:
--   - plugin: lua
--     script: ../lua/drop-idle.lua
--     args: {extra: [my_poll_loop]}

local idle = {}
for _, name in ipairs({
	"cpu_idle", "cpu_idle_loop", "cpu_startup_entry", "do_idle", "default_idle",
	"default_idle_call", "arch_cpu_idle", "intel_idle", "intel_idle_irq",
	"acpi_idle_enter", "acpi_idle_do_entry", "acpi_safe_halt", "cpuidle_enter",
	"cpuidle_enter_state", "cpuidle_idle_call", "poll_idle", "mwait_idle",
	"native_safe_halt", "pv_native_safe_halt", "start_secondary",
}) do
	idle[name] = true
end
if args and args.extra then
	for _, name in ipairs(args.extra) do
		idle[name] = true
	end
end

-- Names are tested once each: the answer is remembered per name.
local seen = {}

local function is_idle(name)
	local v = seen[name]
	if v == nil then
		v = idle[name] == true or name == "swapper" or name:sub(1, 8) == "swapper/"
		seen[name] = v
	end
	return v
end

function sample(s)
	for i = 1, #s do
		if is_idle(s[i]) then
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
