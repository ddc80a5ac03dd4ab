# cassc's CMake toolchain file: `cmake -DCMAKE_TOOLCHAIN_FILE=$CUDA_PATH/cmake/cassc-toolchain.cmake`
# (after `eval "$(cassc env)"`) makes cassc the CUDA compiler and this stand-in toolkit the one that
# find_package(CUDAToolkit) finds, whatever else is installed.
get_filename_component(_cassc_toolkit "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)
set(CMAKE_CUDA_COMPILER "${_cassc_toolkit}/bin/nvcc")
set(CUDAToolkit_ROOT "${_cassc_toolkit}")
unset(_cassc_toolkit)
