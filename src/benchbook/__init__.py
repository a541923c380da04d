"""benchbook: measure web servers honestly, from notebooks anyone can re-run."""
