# ASan + UBSan as an INTERFACE target (preset "asan" turns it on).
add_library(attnscope_sanitizers INTERFACE)
add_library(attnscope::sanitizers ALIAS attnscope_sanitizers)
if(ATTNSCOPE_SANITIZE)
  target_compile_options(attnscope_sanitizers INTERFACE
    -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  target_link_options(attnscope_sanitizers INTERFACE -fsanitize=address,undefined)
endif()
