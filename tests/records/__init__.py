"""Tests of hil.records: results.json, its files, the exit statuses."""
