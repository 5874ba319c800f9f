"""The pure tier: the protocol's rules and measures, the engine, the blackboard's SQL, the tasks' reading and the
report, tested without pxp's app, its agents or litellm in this process (tests/pure/test_pure_tests_import.py checks):
``pytest tests/pure`` is the quick edit loop of the papers' rules."""
