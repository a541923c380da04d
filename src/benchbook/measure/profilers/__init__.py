"""The profilers of the profiled phase (benchbook.measure.profiling), one module per
language: ``python`` (py-spy as the server's parent) and ``go`` (the runtime's own CPU
profiler on a loopback side port). Each wraps a server's command, records while the load
runs, and leaves folded stacks (``root;…;leaf count`` lines, frames ``function (file)``).
Both sample at benchbook.runs.sampling.RATE_HZ."""
