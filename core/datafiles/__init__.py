"""Data files given with the spec (``--data``): checked, fingerprinted and described for the prompt.

- ``inputs``: The data files of a run: each checked, fingerprinted and described, and their folder in the workspace.
- ``head``: Reading a bounded head of a file, and the words for its size.
- ``tabular``: CSV and TSV: columns with inferred types, the row count and the first rows, from the head.
- ``json_shape``: JSON: the top-level shape and a sample.
- ``xlsx``: Excel workbooks: each sheet's columns and first rows, through openpyxl (the ``xlsx`` extra).
- ``kinds``: Any other file: its kind, from its first bytes.
"""
