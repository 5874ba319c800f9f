"""The run wiring: a run configured (``config``), stored (``create``), its agents built (``seats``), driven
by the engine (``execute``), with the LEARN gate and machine measurements (``learn``, ``measure``), and
repeated as an experiment (``repeat``).

Importing this package imports nothing: ``pxp`` builds its argument parser from :mod:`.config` before
the first paint.
"""
