"""The history browser: the runs list, one run, one attempt.

- ``screens``: The history browser: the runs list, one run, one attempt, and two attempts compared.
"""
