"""Errata: JSON Patches that correct known upstream schema defects, one file per revision."""
