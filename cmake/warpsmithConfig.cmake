# warpsmith CMake package: find_package(warpsmith CONFIG REQUIRED) (docs/build-systems.md).
#
# Works from two places:
#   - an installation made by scripts/install.sh PREFIX: this file is
#     PREFIX/lib/cmake/warpsmith/warpsmithConfig.cmake, next to PREFIX/bin/warpsmith,
#     PREFIX/bin/ptxas (a link to it: the drop-in assembler) and PREFIX/lib/libwarpsmith.so;
#   - a built checkout (CMAKE_PREFIX_PATH=<checkout> or warpsmith_DIR=<checkout>/cmake): this file
#     is <checkout>/cmake/warpsmithConfig.cmake and the programs are the newer of
#     target/release and target/debug; the drop-in link is made in the consuming project's build
#     folder (${CMAKE_BINARY_DIR}/warpsmith/ptxas).
#
# Defines:
#   warpsmith_EXECUTABLE   the warpsmith CLI               (imported target warpsmith::warpsmith)
#   warpsmith_PTXAS        the drop-in assembler (a link named ptxas to the CLI)
#   warpsmith_PLUGIN       the LLVM 22 pass plugin, libwarpsmith.so, or empty when absent
#   warpsmith_VERSION      from warpsmithConfigVersion.cmake
#   warpsmith_cuda_target(<target> [PASSES spill shuffle ...] [SPILL_MAX_REGS N|auto|keep] [PLUGIN]
#                         [ENV WARPSMITH_X=value ...])               (warpsmith.cmake)

cmake_policy(PUSH)
cmake_policy(VERSION 3.20...3.31)

get_filename_component(_warpsmith_here "${CMAKE_CURRENT_LIST_DIR}" REALPATH)
set(warpsmith_FOUND TRUE)

if(EXISTS "${_warpsmith_here}/../Cargo.toml" AND EXISTS "${_warpsmith_here}/../src/main.rs")
  # A checkout: pick the most recently built profile.
  get_filename_component(_warpsmith_root "${_warpsmith_here}/.." ABSOLUTE)
  set(_warpsmith_release "${_warpsmith_root}/target/release/warpsmith")
  set(_warpsmith_debug "${_warpsmith_root}/target/debug/warpsmith")
  if(EXISTS "${_warpsmith_release}" AND EXISTS "${_warpsmith_debug}")
    if("${_warpsmith_release}" IS_NEWER_THAN "${_warpsmith_debug}")
      set(_warpsmith_bindir "${_warpsmith_root}/target/release")
    else()
      set(_warpsmith_bindir "${_warpsmith_root}/target/debug")
    endif()
  elseif(EXISTS "${_warpsmith_release}")
    set(_warpsmith_bindir "${_warpsmith_root}/target/release")
  elseif(EXISTS "${_warpsmith_debug}")
    set(_warpsmith_bindir "${_warpsmith_root}/target/debug")
  else()
    set(warpsmith_FOUND FALSE)
    set(warpsmith_NOT_FOUND_MESSAGE
        "the warpsmith checkout ${_warpsmith_root} is not built: run `cargo build --release` there")
  endif()
  if(warpsmith_FOUND)
    set(warpsmith_EXECUTABLE "${_warpsmith_bindir}/warpsmith")
    set(_warpsmith_plugin "${_warpsmith_bindir}/libwarpsmith.so")
    # Tools that take a path to "ptxas" need a file of that name: a link in this build.
    set(warpsmith_PTXAS "${CMAKE_BINARY_DIR}/warpsmith/ptxas")
    file(MAKE_DIRECTORY "${CMAKE_BINARY_DIR}/warpsmith")
    file(CREATE_LINK "${warpsmith_EXECUTABLE}" "${warpsmith_PTXAS}" SYMBOLIC RESULT _warpsmith_link)
    if(NOT _warpsmith_link EQUAL 0)
      set(warpsmith_FOUND FALSE)
      set(warpsmith_NOT_FOUND_MESSAGE "cannot link ${warpsmith_PTXAS} to ${warpsmith_EXECUTABLE}: ${_warpsmith_link}")
    endif()
  endif()
else()
  # An installation: PREFIX/lib/cmake/warpsmith.
  get_filename_component(_warpsmith_prefix "${_warpsmith_here}/../../.." ABSOLUTE)
  set(warpsmith_EXECUTABLE "${_warpsmith_prefix}/bin/warpsmith")
  set(warpsmith_PTXAS "${_warpsmith_prefix}/bin/ptxas")
  set(_warpsmith_plugin "${_warpsmith_prefix}/lib/libwarpsmith.so")
  foreach(_warpsmith_file IN ITEMS "${warpsmith_EXECUTABLE}" "${warpsmith_PTXAS}")
    if(NOT EXISTS "${_warpsmith_file}")
      set(warpsmith_FOUND FALSE)
      set(warpsmith_NOT_FOUND_MESSAGE
          "${_warpsmith_file} is missing: reinstall with scripts/install.sh ${_warpsmith_prefix}")
    endif()
  endforeach()
endif()

if(warpsmith_FOUND)
  if(EXISTS "${_warpsmith_plugin}")
    set(warpsmith_PLUGIN "${_warpsmith_plugin}")
  else()
    set(warpsmith_PLUGIN "")
  endif()
  if(NOT TARGET warpsmith::warpsmith)
    add_executable(warpsmith::warpsmith IMPORTED)
    set_target_properties(warpsmith::warpsmith PROPERTIES IMPORTED_LOCATION "${warpsmith_EXECUTABLE}")
  endif()
  include("${CMAKE_CURRENT_LIST_DIR}/warpsmith.cmake")
  if(NOT warpsmith_FIND_QUIETLY)
    message(STATUS "warpsmith ${warpsmith_VERSION}: ${warpsmith_EXECUTABLE}")
  endif()
endif()

foreach(_warpsmith_var IN ITEMS here root release debug bindir plugin prefix file link)
  unset(_warpsmith_${_warpsmith_var})
endforeach()
unset(_warpsmith_var)
cmake_policy(POP)
