"""Model repair: a local GGUF model (or a shared model server) fixes what hipify's rules could not."""
