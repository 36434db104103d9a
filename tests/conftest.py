"""Test-wide Hypothesis settings.

No per-example deadline: property tests here check behaviour, never speed (benchmarks do that), and a
shared CI machine can make any one example slow. Derandomized: the same examples on every run, so a
failure reproduces and CI never fails on a seed nobody saw.
"""

from hypothesis import settings

settings.register_profile("kubesched", deadline=None, derandomize=True)
settings.load_profile("kubesched")
