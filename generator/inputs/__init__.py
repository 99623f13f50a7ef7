"""Stage zero, the inputs: where schemas come from: pinned revisions, local or downloaded bytes, and the errata applied to them."""
