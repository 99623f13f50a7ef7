"""Stages two and three: the IR spelled as views, rendered through the templates, formatted and written."""
