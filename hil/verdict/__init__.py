"""Metric specs, statistics, adaptive sampling and verdicts: plain maths, no pytest, no board."""
