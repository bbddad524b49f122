"""The benchmark commands (``python -m andrea_viz bench…``): each prints medians and ratios measured
side by side in one run. Speed is shown here, never asserted by a test."""
