"""Tests of core/batch/."""
