# warpsmith_cuda_target(): turns warpsmith on for the CUDA code of one target
# (docs/build-systems.md). Included by warpsmithConfig.cmake, which sets warpsmith_EXECUTABLE,
# warpsmith_PTXAS (the drop-in assembler) and warpsmith_PLUGIN.
#
#   warpsmith_cuda_target(<target>
#                         [PASSES spill shuffle ...]    # drop-in passes, in order (default: spill,
#                                                       # unless PLUGIN is given alone)
#                         [SPILL_MAX_REGS N|auto|keep]  # register target of spilling (default keep:
#                                                       # only where ptxas uses local memory)
#                         [PLUGIN]                      # load libwarpsmith.so: spilling in clang's
#                                                       # own PTX generation
#                         [ENV WARPSMITH_X=value ...])  # any other WARPSMITH_* setting
#
# Needs clang as CMake's CUDA compiler (CMAKE_CUDA_COMPILER_ID Clang); nvcc cannot run another
# assembler, so with nvcc this is an error that says what to do instead.
#
# How: PASSES adds `--ptxas-path=<drop-in>` to the target's CUDA compile options; clang then
# assembles the target's PTX with `warpsmith ptxas`, which rewrites it and runs NVIDIA's ptxas
# (the CUDA toolkit's, passed as WARPSMITH_PTXAS). PLUGIN adds `-fpass-plugin=<plugin>`. The
# WARPSMITH_* settings reach only this target's compilations: they are set by the target's
# CUDA_COMPILER_LAUNCHER (`cmake -E env ...`, placed in front of any launcher already there), so
# other targets and the rest of the build see none of them. Launchers are honoured by the
# Makefile and Ninja generators.

function(warpsmith_cuda_target target)
  cmake_parse_arguments(PARSE_ARGV 1 _ws "PLUGIN" "SPILL_MAX_REGS" "PASSES;ENV")
  set(_fn "warpsmith_cuda_target(${target})")
  if(_ws_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "${_fn}: unknown arguments: ${_ws_UNPARSED_ARGUMENTS} "
                        "(expected PASSES, SPILL_MAX_REGS, PLUGIN, ENV)")
  endif()
  if(_ws_KEYWORDS_MISSING_VALUES)
    message(FATAL_ERROR "${_fn}: no value after ${_ws_KEYWORDS_MISSING_VALUES}")
  endif()
  if(NOT TARGET "${target}")
    message(FATAL_ERROR "${_fn}: no target named `${target}`")
  endif()
  get_target_property(_imported "${target}" IMPORTED)
  if(_imported)
    message(FATAL_ERROR "${_fn}: `${target}` is an imported target; warpsmith changes how a target is compiled")
  endif()

  get_property(_languages GLOBAL PROPERTY ENABLED_LANGUAGES)
  if(NOT "CUDA" IN_LIST _languages)
    message(FATAL_ERROR "${_fn}: the CUDA language is not enabled (project(... LANGUAGES CUDA) or enable_language(CUDA))")
  endif()
  if(NOT CMAKE_CUDA_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR
      "${_fn}: the CUDA compiler is ${CMAKE_CUDA_COMPILER_ID} (${CMAKE_CUDA_COMPILER}); warpsmith "
      "can drive only clang, which takes another assembler (--ptxas-path) and pass plugins. "
      "nvcc always runs the ptxas of its own toolkit. With nvcc: configure with "
      "-DCMAKE_CUDA_COMPILER=clang++ (clang 22); or run the warpsmith CLI on PTX (`nvcc -ptx`, "
      "`warpsmith spill`, then `nvcc -cubin`/`-fatbin` on the rewritten .ptx); see "
      "docs/build-systems.md.")
  endif()

  # Passes of the drop-in.
  if(NOT DEFINED _ws_PASSES AND NOT _ws_PLUGIN)
    set(_ws_PASSES spill)
  endif()
  foreach(_pass IN LISTS _ws_PASSES)
    if(NOT _pass MATCHES "^(spill|shuffle)$")
      message(FATAL_ERROR "${_fn}: unknown pass `${_pass}` (the drop-in runs spill and shuffle)")
    endif()
  endforeach()

  set(_env "")
  if(DEFINED _ws_SPILL_MAX_REGS)
    if(NOT _ws_SPILL_MAX_REGS MATCHES "^(auto|keep)$")
      if(NOT _ws_SPILL_MAX_REGS MATCHES "^[0-9]+$" OR _ws_SPILL_MAX_REGS LESS 16 OR _ws_SPILL_MAX_REGS GREATER 255)
        message(FATAL_ERROR "${_fn}: SPILL_MAX_REGS must be keep, auto or a number from 16 to 255, not `${_ws_SPILL_MAX_REGS}`")
      endif()
    endif()
    list(APPEND _env "WARPSMITH_SPILL_MAX_REGS=${_ws_SPILL_MAX_REGS}")
  elseif(_ws_PLUGIN)
    # The plugin spills only when asked to; `keep`, the drop-in's default.
    list(APPEND _env "WARPSMITH_SPILL_MAX_REGS=keep")
  endif()
  foreach(_setting IN LISTS _ws_ENV)
    if(NOT _setting MATCHES "^WARPSMITH_[A-Z0-9_]+=")
      message(FATAL_ERROR "${_fn}: ENV takes WARPSMITH_NAME=value settings, not `${_setting}`")
    endif()
    if(_setting MATCHES "^WARPSMITH_(PASSES|PTXAS_ACTIVE)=")
      message(FATAL_ERROR "${_fn}: `${_setting}`: give the passes with PASSES")
    endif()
    list(APPEND _env "${_setting}")
  endforeach()

  if(_ws_PASSES)
    if(NOT warpsmith_PTXAS OR NOT EXISTS "${warpsmith_PTXAS}")
      message(FATAL_ERROR "${_fn}: the drop-in assembler `${warpsmith_PTXAS}` is missing")
    endif()
    string(REPLACE ";" "," _passes "${_ws_PASSES}")
    list(PREPEND _env "WARPSMITH_PASSES=${_passes}")
    # NVIDIA's ptxas of the toolkit clang uses, unless the settings name another.
    set(_real "${CMAKE_CUDA_COMPILER_TOOLKIT_ROOT}/bin/ptxas")
    if(NOT "${_ws_ENV}" MATCHES "WARPSMITH_PTXAS=" AND CMAKE_CUDA_COMPILER_TOOLKIT_ROOT AND EXISTS "${_real}")
      get_filename_component(_real_resolved "${_real}" REALPATH)
      get_filename_component(_dropin_resolved "${warpsmith_PTXAS}" REALPATH)
      if(NOT _real_resolved STREQUAL _dropin_resolved)
        list(APPEND _env "WARPSMITH_PTXAS=${_real}")
      endif()
    endif()
    target_compile_options("${target}" PRIVATE "$<$<COMPILE_LANGUAGE:CUDA>:--ptxas-path=${warpsmith_PTXAS}>")
  endif()

  if(_ws_PLUGIN)
    if(NOT warpsmith_PLUGIN)
      message(FATAL_ERROR "${_fn}: PLUGIN: this warpsmith has no libwarpsmith.so (built with "
                          "--no-default-features, or installed without the plugin)")
    endif()
    target_compile_options("${target}" PRIVATE "$<$<COMPILE_LANGUAGE:CUDA>:-fpass-plugin=${warpsmith_PLUGIN}>")
  endif()

  # The settings, for this target's compilations only.
  get_target_property(_launcher "${target}" CUDA_COMPILER_LAUNCHER)
  set(_command "${CMAKE_COMMAND}" -E env ${_env})
  if(_launcher)
    list(APPEND _command ${_launcher})
  endif()
  set_property(TARGET "${target}" PROPERTY CUDA_COMPILER_LAUNCHER "${_command}")
  # Recorded for inspection (get_target_property(... WARPSMITH_SETTINGS)).
  set_property(TARGET "${target}" PROPERTY WARPSMITH_SETTINGS "${_env}")
endfunction()
