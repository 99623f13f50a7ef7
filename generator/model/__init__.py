"""Stage one: a schema read into the frozen intermediate model (IR)."""
