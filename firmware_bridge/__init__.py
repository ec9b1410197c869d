"""The LED scoreboard: wire protocol, pyserial bridge, and the emulated firmware harness.

Speaks card codes and plain numbers only; knows nothing of the rules engine.
"""
