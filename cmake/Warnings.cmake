# Warnings as an INTERFACE target: link it PRIVATE to opt a target in.
add_library(attnscope_warnings INTERFACE)
add_library(attnscope::warnings ALIAS attnscope_warnings)
target_compile_options(attnscope_warnings INTERFACE
  $<$<CXX_COMPILER_ID:GNU,Clang>:-Wall -Wextra -Wpedantic>
  $<$<CXX_COMPILER_ID:GNU>:-Wshadow=local>
  $<$<CXX_COMPILER_ID:Clang>:-Wshadow-uncaptured-local>
  $<$<CXX_COMPILER_ID:GNU,Clang>:-Wnon-virtual-dtor -Wno-unused-parameter>
  $<$<CXX_COMPILER_ID:GNU>:-Wno-maybe-uninitialized>
  # In a unity batch every file but the first is 'included', and GCC then warns
  # on each class holding a type from that file's anonymous namespace.
  $<$<AND:$<CXX_COMPILER_ID:GNU>,$<BOOL:${ATTNSCOPE_UNITY}>>:-Wno-subobject-linkage>)

# Engine optimisation: -O3 and the host's vector units for the numeric core;
# ATTNSCOPE_NATIVE=OFF keeps a portable baseline build for packaging.
# Sanitizer builds keep their preset's -O1: -O3 with ASan on Eigen takes
# minutes per file and finds nothing more.
add_library(attnscope_fast_math INTERFACE)
add_library(attnscope::fast_math ALIAS attnscope_fast_math)
target_compile_options(attnscope_fast_math INTERFACE
  $<$<AND:$<CXX_COMPILER_ID:GNU,Clang>,$<NOT:$<CONFIG:Debug>>,$<NOT:$<BOOL:${ATTNSCOPE_SANITIZE}>>>:-O3>
  $<$<AND:$<CXX_COMPILER_ID:GNU,Clang>,$<BOOL:${ATTNSCOPE_NATIVE}>>:-march=native>)
