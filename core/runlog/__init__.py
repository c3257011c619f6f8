"""logs/<run_id>/: the layout, the writer and the reader.

- ``layout``: ``logs/<run_id>/``: everything about one run, the only truth history reads.
"""
