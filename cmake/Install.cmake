# cmake --install: the programs, bundled examples, desktop integration (menu
# entry, icon, AppStream metainfo, MIME types), man pages generated from the
# programs' own --help, and shell completion for attnscope-cli. The UI
# translations are compiled into the programs (:/i18n), so none are installed.
include(GNUInstallDirs)

set(ATTNSCOPE_APP_ID org.attnscope.AttnScope)
set(ATTNSCOPE_HOMEPAGE "https://github.com/attnscope/attnscope" CACHE STRING
    "Project home page (AppStream metainfo, Debian package)")
# The project's licence (LICENSE, .reuse/dep5), not a build option: a plain variable,
# so no value cached in a build tree can override it.
set(ATTNSCOPE_LICENSE "GPL-3.0-or-later")  # SPDX: AppStream project_license, Debian copyright
set(ATTNSCOPE_MAINTAINER "AttnScope developers <attnscope@example.org>" CACHE STRING
    "Maintainer field of the Debian package")
set(ATTNSCOPE_RES ${PROJECT_SOURCE_DIR}/resources)

install(TARGETS attnscope-cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY ${ATTNSCOPE_RES}/examples/ DESTINATION ${CMAKE_INSTALL_DATADIR}/attnscope/examples)
install(FILES ${ATTNSCOPE_RES}/completion/attnscope-cli.bash
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions RENAME attnscope-cli)
install(FILES ${ATTNSCOPE_RES}/completion/_attnscope-cli
        DESTINATION ${CMAKE_INSTALL_DATADIR}/zsh/vendor-completions)

# Man pages from --help at build time (target "man", part of the default build).
set(ATTNSCOPE_MAN_DIR ${PROJECT_BINARY_DIR}/man)
function(attnscope_man_page target summary subcommands see_also)
  set(page ${ATTNSCOPE_MAN_DIR}/${target}.1)
  add_custom_command(
    OUTPUT ${page}.gz
    COMMAND ${CMAKE_COMMAND} -DEXE=$<TARGET_FILE:${target}> -DNAME=${target} -DVERSION=${PROJECT_VERSION}
            "-DSUMMARY=${summary}" -DSUBCOMMANDS=${subcommands} "-DSEE_ALSO=${see_also}" -DOUT=${page}
            -P ${PROJECT_SOURCE_DIR}/cmake/HelpToMan.cmake
    COMMAND gzip -9nf ${page}
    DEPENDS ${target} ${PROJECT_SOURCE_DIR}/cmake/HelpToMan.cmake
    COMMENT "Man page ${target}(1) from ${target} --help"
    VERBATIM)
  set_property(GLOBAL APPEND PROPERTY ATTNSCOPE_MAN_PAGES ${page}.gz)
  install(FILES ${page}.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
endfunction()

attnscope_man_page(attnscope-cli "compute, analyze and export attention maps headless" ON "attnscope(1)")
if(ATTNSCOPE_BUILD_GUI)
  attnscope_man_page(attnscope "desktop attention visualizer" OFF "attnscope-cli(1)")
endif()
get_property(_attnscope_pages GLOBAL PROPERTY ATTNSCOPE_MAN_PAGES)
# Sanitizer builds leave them out of the default build (their leak reports at
# exit would fail it); build the "man" target there by hand if wanted.
if(ATTNSCOPE_SANITIZE)
  add_custom_target(man DEPENDS ${_attnscope_pages})
else()
  add_custom_target(man ALL DEPENDS ${_attnscope_pages})
endif()

if(ATTNSCOPE_BUILD_GUI)
  install(TARGETS attnscope RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  # attnscope-cli's figure renderer (app/cli/CMakeLists.txt), a private program.
  install(TARGETS attnscope-cli-figures RUNTIME DESTINATION ${ATTNSCOPE_LIB_INSTALL_DIR})
  install(FILES ${ATTNSCOPE_RES}/desktop/${ATTNSCOPE_APP_ID}.desktop
          DESTINATION ${CMAKE_INSTALL_DATADIR}/applications)
  configure_file(${ATTNSCOPE_RES}/desktop/${ATTNSCOPE_APP_ID}.metainfo.xml.in
                 ${PROJECT_BINARY_DIR}/${ATTNSCOPE_APP_ID}.metainfo.xml @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/${ATTNSCOPE_APP_ID}.metainfo.xml
          DESTINATION ${CMAKE_INSTALL_DATADIR}/metainfo)
  install(FILES ${ATTNSCOPE_RES}/desktop/attnscope-mime.xml
          DESTINATION ${CMAKE_INSTALL_DATADIR}/mime/packages RENAME attnscope.xml)
  install(FILES ${ATTNSCOPE_RES}/icons/attnscope.svg
          DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/scalable/apps RENAME ${ATTNSCOPE_APP_ID}.svg)
  foreach(size 16 24 32 48 64 128 256 512)
    install(FILES ${ATTNSCOPE_RES}/icons/attnscope-${size}.png
            DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/${size}x${size}/apps RENAME ${ATTNSCOPE_APP_ID}.png)
  endforeach()
endif()

# The bundled trained models (resources/models/<name>/, Hugging Face folders made
# by scripts/models/). Programs look for them in <bin>/../share/attnscope/models
# (core/attn/models/bundled_models.h); the build tree gets the same layout as a
# link to the source folder, so `--model austen-gpt2` works before installing.
install(DIRECTORY ${ATTNSCOPE_RES}/models/ DESTINATION ${CMAKE_INSTALL_DATADIR}/attnscope/models
        PATTERN "*.py" EXCLUDE)
file(MAKE_DIRECTORY ${CMAKE_BINARY_DIR}/share/attnscope)
if(NOT EXISTS ${CMAKE_BINARY_DIR}/share/attnscope/models AND NOT IS_SYMLINK ${CMAKE_BINARY_DIR}/share/attnscope/models)
  file(CREATE_LINK ${ATTNSCOPE_RES}/models ${CMAKE_BINARY_DIR}/share/attnscope/models SYMBOLIC)
endif()
