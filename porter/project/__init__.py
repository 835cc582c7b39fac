"""Project layer: the files of a CUDA project, converting a tree, the review
session, and writing output atomically."""
