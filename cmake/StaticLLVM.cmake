# Links LLVM and MLIR statically into the tools, for the GPU-machine bundle:
# Debian's MLIR targets name the shared libLLVM (which needs z3, ICU and
# libxml2 at run time); replace it with LLVM's static component libraries.
execute_process(
  COMMAND ${LLVM_TOOLS_BINARY_DIR}/llvm-config --link-static --libs
  OUTPUT_VARIABLE FUSION_LLVM_LIBS OUTPUT_STRIP_TRAILING_WHITESPACE
  COMMAND_ERROR_IS_FATAL ANY)
separate_arguments(FUSION_LLVM_LIBS UNIX_COMMAND "${FUSION_LLVM_LIBS}")
list(FILTER FUSION_LLVM_LIBS EXCLUDE REGEX "Polly")
list(TRANSFORM FUSION_LLVM_LIBS REPLACE "^-l(.*)$" "${LLVM_LIBRARY_DIR}/lib\\1.a")
# zlib and zstd statically too: the GPU machine has no libzstd.
find_library(FUSION_ZSTD_STATIC libzstd.a REQUIRED)
find_library(FUSION_Z_STATIC libz.a REQUIRED)
set(FUSION_LLVM_STATIC_LINK
    -Wl,--start-group ${FUSION_LLVM_LIBS} -Wl,--end-group
    ${FUSION_ZSTD_STATIC} ${FUSION_Z_STATIC} rt dl m)

get_property(fusion_mlir_libs GLOBAL PROPERTY MLIR_ALL_LIBS)
foreach(lib ${fusion_mlir_libs} MLIRSupport MLIRTableGen)
  if(NOT TARGET ${lib})
    continue()
  endif()
  get_target_property(deps ${lib} INTERFACE_LINK_LIBRARIES)
  if(NOT deps)
    continue()
  endif()
  list(FIND deps LLVM has_llvm)
  if(has_llvm EQUAL -1)
    continue()
  endif()
  list(REMOVE_ITEM deps LLVM)
  list(APPEND deps ${FUSION_LLVM_STATIC_LINK})
  set_target_properties(${lib} PROPERTIES INTERFACE_LINK_LIBRARIES "${deps}")
endforeach()

set(LLVM_LINK_LLVM_DYLIB OFF)
# Not in a fuzzer build: a static libstdc++'s operator new[] (malloc inside)
# would then pair with ASan's operator delete[], which reports every such
# delete as an alloc-dealloc mismatch.
if(NOT FUSION_ENABLE_FUZZERS)
  set(CMAKE_EXE_LINKER_FLAGS
      "${CMAKE_EXE_LINKER_FLAGS} -static-libstdc++ -static-libgcc")
endif()

# LLVM's static export set names zstd's CMake target, which Debian's zstd
# package does not provide.
if(NOT TARGET zstd::libzstd_shared)
  add_library(zstd::libzstd_shared INTERFACE IMPORTED)
  set_target_properties(zstd::libzstd_shared PROPERTIES
                        INTERFACE_LINK_LIBRARIES zstd)
endif()
