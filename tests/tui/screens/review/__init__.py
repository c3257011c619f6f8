"""Tests of the matching source folder."""
