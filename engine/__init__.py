"""The Basra rules engine: cards, rule sets, captures, rounds, matches, scoring, verdicts.

Pure functions and plain data only: no I/O, and no imports from the other packages.
"""
