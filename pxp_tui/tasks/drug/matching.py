"""DRUG's MATCH rules, by name (``pxp run --drug-match``; docs/FIDELITY.md, row match-drug). Imports nothing: the
run's options are built from it before the app's first paint.

- ``same-set`` (the default): the same set of canonical reactants, the papers' "identical" pathways;
- ``any-in-common``: a canonical reactant in common, the reference scripts' ``DRUG.match`` as it runs;
- ``any-in-common-or-fingerprint``: that, or two reactants with the same Morgan fingerprint (radius 2, 1024 bits)
  compared bit for bit, the reference's code as written (it puts the fingerprints in Python sets, which compare
  RDKit's bit vectors as objects, so that part never matches when it runs).
"""

from __future__ import annotations

SAME_SET, IN_COMMON, FINGERPRINT = "same-set", "any-in-common", "any-in-common-or-fingerprint"
MATCH_RULES = (SAME_SET, IN_COMMON, FINGERPRINT)
