"""The ``pxp`` command."""
