"""The LED scoreboard: wire protocol, pyserial bridge, and the emulated firmware harness.

Speaks card codes and plain numbers only; knows nothing of the rules engine.
"""

import logging

# A library logs; the application decides where it goes (no "No handlers" noise, no stderr spam).
logging.getLogger(__name__).addHandler(logging.NullHandler())
