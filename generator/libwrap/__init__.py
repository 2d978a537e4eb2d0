"""Library wrapping: the header front-end (header.py) turns a preprocessed
library header into Procedure objects; the back-end renders wrappers from them."""
