"""Tests of hil.report (a package, so module names cannot clash with other test folders)."""
