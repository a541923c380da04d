"""How much the harness samples where it cannot take everything: what stored numbers rest
on, and what the analysis says they rest on."""

# Reading every record back after a long write run would take longer than the run:
# beyond this many, a random sample is read (duplicate ids are counted exactly anyway).
RESOLVE_AT_MOST = 500
RATE_HZ = 100  # py-spy's sampling rate: the Go runtime's own CPU-profile rate
