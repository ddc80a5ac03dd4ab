"""The binary path: device code of nvcc-built objects, libraries and executables, translated to AMD GPUs."""
