"""The bottom layer: records and helpers every other layer uses, importing nothing of pxp-tui.

- :mod:`~pxp_tui.common.instance`: :class:`Instance`, a data instance with its reference answer;
- :mod:`~pxp_tui.common.kinds`: :class:`HumanKind`, who answers in the human's seat;
- :mod:`~pxp_tui.common.models`: model names (the offline baseline, how a model is named to users);
- :mod:`~pxp_tui.common.redaction`: credentials kept out of everything written;
- :mod:`~pxp_tui.common.replies`: what models wrap around their answers (thinking, code fences), set aside before
  the tasks and the checker read them;
- :mod:`~pxp_tui.common.files`: folders and files written for the user: umask, never world-writable, all or nothing.
"""
