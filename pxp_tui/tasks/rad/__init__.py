"""RAD: diagnosis of a chest X-ray among five conditions, with a short report (DESIGN.md section 3)."""
