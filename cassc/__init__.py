"""cassc: a drop-in nvcc that builds CUDA programs for AMD GPUs."""

__version__ = "0.1.0"
