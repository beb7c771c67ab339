# One package, every x86-64 CPU, full speed: the engine library (attnscope_core)
# is built once per x86-64 level and the dynamic loader picks the copy at start-up
# from the CPU's features (glibc-hwcaps, glibc >= 2.33):
#   lib/libattnscope_core.so                             baseline x86-64 (any CPU)
#   lib/glibc-hwcaps/x86-64-v3/libattnscope_core.so      AVX2 + FMA          ("avx2")
#   lib/glibc-hwcaps/x86-64-v4/libattnscope_core.so      AVX-512 F/BW/DQ/VL  ("avx512")
# Each copy is one whole library compiled with one -march, so no AVX code can
# reach a CPU without AVX (a per-function dispatch inside one binary can, when
# the linker keeps an AVX copy of an inline template for the baseline caller).
# The programs and the rest of the code are baseline. ATTNSCOPE_CPU forces a
# lower level (core/attn/cpu/cpu_level.cpp re-executes the program with glibc's
# hwcaps tunable masking the higher ones).
#
# ATTNSCOPE_NATIVE=ON builds one static engine for this host instead (-march=native:
# the dev and app presets, sanitizer builds); ATTNSCOPE_CPU_LEVELS="" one static
# baseline engine (presets portable, gpu).
set(_attn_levels_default "")
if(CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64)$" AND CMAKE_CXX_COMPILER_ID MATCHES "^(GNU|Clang)$")
  set(_attn_levels_default "avx2;avx512")
endif()
set(ATTNSCOPE_CPU_LEVELS "${_attn_levels_default}" CACHE STRING
    "x86-64 levels the engine library is also built for, besides baseline (avx2, avx512); empty: one static engine")
foreach(_attn_level IN LISTS ATTNSCOPE_CPU_LEVELS)
  if(NOT _attn_level MATCHES "^(avx2|avx512)$")
    message(FATAL_ERROR "ATTNSCOPE_CPU_LEVELS: unknown level '${_attn_level}' (avx2, avx512)")
  endif()
endforeach()
# The levels built here: none for a native or sanitizer build (one static engine).
set(ATTNSCOPE_CPU_DISPATCH_LEVELS "")
if(NOT ATTNSCOPE_NATIVE AND NOT ATTNSCOPE_SANITIZE AND NOT ATTNSCOPE_FUZZ)
  set(ATTNSCOPE_CPU_DISPATCH_LEVELS ${ATTNSCOPE_CPU_LEVELS})
endif()
if(ATTNSCOPE_CPU_DISPATCH_LEVELS)
  set(ATTNSCOPE_CPU_DISPATCH ON)
  message(STATUS "AttnScope engine: baseline x86-64 + ${ATTNSCOPE_CPU_DISPATCH_LEVELS} (glibc-hwcaps)")
else()
  set(ATTNSCOPE_CPU_DISPATCH OFF)
endif()

# Where the engine libraries go, in the build tree and installed (a private
# directory: the programs find it through their RUNPATH, $ORIGIN-relative so an
# installed tree can be moved, e.g. into the package test's throwaway root).
set(ATTNSCOPE_LIB_BUILD_DIR ${CMAKE_BINARY_DIR}/lib)
include(GNUInstallDirs)
# Debian's multiarch directory whatever the prefix (GNUInstallDirs gives it only
# for /usr): a package built with the default prefix still installs there, and
# a private directory needs no ldconfig.
if(CMAKE_LIBRARY_ARCHITECTURE)
  set(ATTNSCOPE_LIB_INSTALL_DIR lib/${CMAKE_LIBRARY_ARCHITECTURE}/attnscope)
else()
  set(ATTNSCOPE_LIB_INSTALL_DIR ${CMAKE_INSTALL_LIBDIR}/attnscope)
endif()
# (The same directory holds attnscope-cli-figures, app/cli/CMakeLists.txt.)
file(RELATIVE_PATH ATTNSCOPE_BIN_TO_LIB /${CMAKE_INSTALL_BINDIR} /${ATTNSCOPE_LIB_INSTALL_DIR})
if(ATTNSCOPE_CPU_DISPATCH)
  set(CMAKE_INSTALL_RPATH "$ORIGIN/${ATTNSCOPE_BIN_TO_LIB}")
endif()

# The -march and the glibc-hwcaps subdirectory of a level.
function(attn_level_march level out_march out_subdir)
  if(level STREQUAL "avx2")
    set(${out_march} x86-64-v3 PARENT_SCOPE)
    set(${out_subdir} glibc-hwcaps/x86-64-v3 PARENT_SCOPE)
  elseif(level STREQUAL "avx512")
    set(${out_march} x86-64-v4 PARENT_SCOPE)
    set(${out_subdir} glibc-hwcaps/x86-64-v4 PARENT_SCOPE)
  endif()
endfunction()
