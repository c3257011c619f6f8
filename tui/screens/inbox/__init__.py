"""The review inbox: finished batch runs waiting for a person, and the review of one.

- ``runs``: The inbox's list: the waiting runs, newest first, filtered as the person types.
- ``review``: One run's whole change in the review keys; enter lands it, rejects go back.
"""
