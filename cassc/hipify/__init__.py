"""CUDA source -> HIP source, out of tree: rename tables (tables/*.tsv), a token rewriter that leaves
string literals and comments alone, and a mirror of the translation unit's local headers."""
