# CPack: a Debian package (scripts/package.sh -> attnscope_<version>_amd64.deb).
# Depends come from dpkg-shlibdeps on the installed programs; the only hand-added
# dependency is Qt's platform plugin package, which nothing links against.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME attnscope)
set(CPACK_PACKAGE_VENDOR "The AttnScope authors")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "desktop attention visualizer for transformer models")
set(CPACK_PACKAGE_CONTACT "${ATTNSCOPE_MAINTAINER}")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_INSTALL_DEFAULT_DIRECTORY_PERMISSIONS
    OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "${ATTNSCOPE_HOMEPAGE}")
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${ATTNSCOPE_MAINTAINER}")
if(ATTNSCOPE_BUILD_GUI)
  set(CPACK_DEBIAN_PACKAGE_DEPENDS "qt6-qpa-plugins")
  set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "qt6-translations-l10n, qt6-svg-plugins")
endif()
# CPack writes the synopsis (CPACK_PACKAGE_DESCRIPTION_SUMMARY) as the first line itself.
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
"AttnScope computes attention variants (dot product, scaled, additive, linear
and sparse patterns) under masks and positional encodings on the CPU, or reads
the attention of a real model (NumPy .npz/.npy, safetensors, CSV, Hugging Face
model folders), and draws one heatmap per head with per-head metrics.
.
This package holds the Qt desktop program attnscope and the command-line tool
attnscope-cli, which exports the same figures and numbers without a display.")

# Debian policy files: copyright and a gzip -n changelog in /usr/share/doc.
set(_deb_doc ${PROJECT_BINARY_DIR}/debian-doc)
file(MAKE_DIRECTORY ${_deb_doc})
configure_file(${PROJECT_SOURCE_DIR}/resources/debian/copyright.in ${_deb_doc}/copyright @ONLY)
string(TIMESTAMP _deb_date "%a, %d %b %Y %H:%M:%S +0000" UTC)
file(WRITE ${_deb_doc}/changelog
"attnscope (${PROJECT_VERSION}) unstable; urgency=medium

  * Release ${PROJECT_VERSION}.

 -- ${ATTNSCOPE_MAINTAINER}  ${_deb_date}
")
execute_process(COMMAND gzip -9nf ${_deb_doc}/changelog)
install(FILES ${_deb_doc}/copyright ${_deb_doc}/changelog.gz DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/attnscope)

include(CPack)
