"""The test harness: what the tests, the benchmarks and the scripts drive pxp with (Pilot helpers and waits, real
terminals, Xvfb and the browser, the stub server, crash scenarios, the doors to Textual's private parts the tests
use). Never imported by ``pxp_tui`` (an import-linter contract); not installed with it.
"""
