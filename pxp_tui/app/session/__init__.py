"""The live session: its screen, the engine's worker and messages, the open exchange, the guards on the
expert's answer, the live metrics, the frame held over a reply, the outcome, the run's summary; its widgets
are in ``widgets/``.

Importing this package imports nothing heavy.
"""
