"""Validity flags as stored in a row's ``flags`` column (``;``-separated), the thresholds
that raise them (benchbook.measure.flags applies them) and which flags make a row invalid.
The analysis words the same thresholds, so they live here, once."""

# The load tool's and Little's law's thresholds are part of the rule of what set a rate
# (benchbook.runs.limits).
NEAR_CEILING_HEADROOM = 0.90  # of the tool setting's calibrated ceiling (notebook 00)
SHORT_RUN_S = 5.0
SHORT_RUN_REQUESTS = 10_000  # below this, p99.9 rests on fewer than 10 samples
# Shares are compared rounded to this many digits, so a gap of exactly 15 % (or a load
# tool at exactly 90 %) falls on the same side of the line whatever float rounding did.
SHARE_DIGITS = 9

# Flags that make a row's numbers not a measurement of the server doing its job: such
# rows are kept and shown, but never ranked or summarised with the valid ones.
INVALID_FLAGS = ("bad_response", "server_died", "data_loss")


def is_valid(flags: str) -> bool:
    return not any(flag in INVALID_FLAGS for flag in flags.split(";"))
