# Version file of the warpsmith CMake package (find_package(warpsmith <version> CONFIG)).
# The version is the crate's (Cargo.toml); tests/cmake_package.rs checks that the two agree.
# Compatible: at least the requested version, with the same major version (for 0.x releases the
# same minor version too, as Cargo reads 0.x versions).
set(PACKAGE_VERSION "0.1.0")

string(REPLACE "." ";" _warpsmith_have "${PACKAGE_VERSION}")
list(GET _warpsmith_have 0 _warpsmith_major)
list(GET _warpsmith_have 1 _warpsmith_minor)
if(PACKAGE_FIND_VERSION VERSION_GREATER PACKAGE_VERSION)
  set(PACKAGE_VERSION_COMPATIBLE FALSE)
elseif(NOT PACKAGE_FIND_VERSION_MAJOR EQUAL _warpsmith_major)
  set(PACKAGE_VERSION_COMPATIBLE FALSE)
elseif(_warpsmith_major EQUAL 0 AND PACKAGE_FIND_VERSION_COUNT GREATER 1
       AND NOT PACKAGE_FIND_VERSION_MINOR EQUAL _warpsmith_minor)
  set(PACKAGE_VERSION_COMPATIBLE FALSE)
else()
  set(PACKAGE_VERSION_COMPATIBLE TRUE)
  if(PACKAGE_FIND_VERSION VERSION_EQUAL PACKAGE_VERSION)
    set(PACKAGE_VERSION_EXACT TRUE)
  endif()
endif()
unset(_warpsmith_have)
unset(_warpsmith_major)
unset(_warpsmith_minor)

# A 64-bit Linux tool: refuse other consumers here rather than fail later.
if(CMAKE_SIZEOF_VOID_P AND NOT CMAKE_SIZEOF_VOID_P EQUAL 8)
  set(PACKAGE_VERSION "${PACKAGE_VERSION} (64-bit)")
  set(PACKAGE_VERSION_UNSUITABLE TRUE)
endif()
