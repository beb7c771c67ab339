# Unity (jumbo) builds: each target's sources are compiled in batches of
# ATTNSCOPE_UNITY_BATCH files, so Eigen's, Qt's and GoogleTest's templates are
# instantiated and optimised once per batch instead of once per file, and each
# precompiled header (hundreds of MB) is loaded once per batch. A clean build
# is what CI and a first run pay for. The dev preset turns it off: there one
# edited file should recompile alone.
option(ATTNSCOPE_UNITY "Compile each target's sources in unity batches (faster clean builds)" ON)
set(ATTNSCOPE_UNITY_BATCH 12 CACHE STRING "Source files per unity batch")
if(ATTNSCOPE_UNITY)
  set(CMAKE_UNITY_BUILD ON)
  set(CMAKE_UNITY_BUILD_BATCH_SIZE ${ATTNSCOPE_UNITY_BATCH})
endif()

# Files that define their own file-local tr() (a translation context of their
# own) cannot share a batch with one another: they are compiled alone.
function(attn_unity_skip_local_tr)
  foreach(src IN LISTS ARGN)
    if(src MATCHES "\\.cpp$")
      file(STRINGS ${src} local_tr REGEX "^QString tr\\(const char")
      if(local_tr)
        set_source_files_properties(${src} PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
      endif()
    endif()
  endforeach()
endfunction()
