"""Spin: the rule table written out as Promela (`promela.py`), for spaces too big for Python."""
