# ASan + UBSan as an INTERFACE target (preset "asan" turns it on).
add_library(attnscope_sanitizers INTERFACE)
add_library(attnscope::sanitizers ALIAS attnscope_sanitizers)
if(ATTNSCOPE_SANITIZE)
  target_compile_options(attnscope_sanitizers INTERFACE
    -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  target_link_options(attnscope_sanitizers INTERFACE -fsanitize=address,undefined)
endif()
# libFuzzer (preset "fuzz", clang only): coverage instrumentation everywhere the
# sanitizers go; tests/fuzz links the fuzzer's main() into its targets.
if(ATTNSCOPE_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "ATTNSCOPE_FUZZ needs clang (libFuzzer); use the 'fuzz' preset")
  endif()
  target_compile_options(attnscope_sanitizers INTERFACE -fsanitize=fuzzer-no-link)
endif()
