"""Instructor tooling: release student notebooks, grade submissions."""
