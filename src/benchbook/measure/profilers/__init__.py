"""The profilers of the profiled phase (benchbook.measure.profiling), one module each, which
a language names in servers.toml: ``python`` (py-spy as the server's parent), ``go`` (the
runtime's own CPU profiler on a loopback side port) and ``perf`` (Linux perf as a native
server's parent, stacks unwound with DWARF). Each wraps a server's command, records while
the load runs, and leaves folded stacks (``root;…;leaf count`` lines, frames ``function
(file)``). All sample at benchbook.runs.sampling.RATE_HZ."""
