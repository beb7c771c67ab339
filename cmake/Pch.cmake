# Precompiled headers: most of a translation unit's compile time here is parsing
# Eigen, Qt + QCustomPlot and GoogleTest (a typical UI file spends nearly all
# of its compile time in those headers, a core or test file about half). Each target precompiles the third-party headers it
# uses once; our own headers stay out so that editing them rebuilds as before.
# ATTNSCOPE_PCH=OFF (the dev preset: ccache hits are worth more there) turns it off.
option(ATTNSCOPE_PCH "Precompile the third-party headers (Eigen, Qt, QCustomPlot, GoogleTest)" ON)

set(ATTN_PCH_STD <algorithm> <cmath> <cstdint> <functional> <memory> <optional> <string> <string_view>
                 <unordered_map> <utility> <vector>)
set(ATTN_PCH_EIGEN <Eigen/Core> <Eigen/Dense>)
set(ATTN_PCH_QT <QtCore> <QtGui> <QtWidgets> <qcustomplot.h>)
set(ATTN_PCH_TEST <gtest/gtest.h> <gmock/gmock.h>)

# attn_precompile(<target> <kind>...) with kinds among core, cli, qt, test.
function(attn_precompile target)
  if(NOT ATTNSCOPE_PCH)
    return()
  endif()
  set(headers ${ATTN_PCH_STD} ${ATTN_PCH_EIGEN} <fmt/format.h>)
  foreach(kind IN LISTS ARGN)
    if(kind STREQUAL "core")
      list(APPEND headers <nlohmann/json.hpp>)
    elseif(kind STREQUAL "qt")
      list(APPEND headers ${ATTN_PCH_QT})
    elseif(kind STREQUAL "cli")
      list(APPEND headers <CLI/CLI.hpp>)
    elseif(kind STREQUAL "test")
      list(APPEND headers ${ATTN_PCH_TEST})
    endif()
  endforeach()
  target_precompile_headers(${target} PRIVATE ${headers})
endfunction()
