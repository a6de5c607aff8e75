"""A reference for every code hz reports and every event kind it records (`hz explain`, docs/codes.md).

The entries are plain data in this package, read without pydantic or click, so `hz explain` starts as
fast as the interpreter allows. A meta-test (tests/test_codes_catalog.py) keeps them complete: every
code the package can emit has an entry, every entry names a code the package emits, and each example
is run through the real validator or lint to prove it raises its code.
"""
