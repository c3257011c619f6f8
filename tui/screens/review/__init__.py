"""The review screen: a proposal's files and hunks under the person's keys.

- ``screen``: The review screen: spec, attempt timeline, proposal diff, model text and test output.
"""
