# cmake -DCUOBJDUMP=... -DBINARY=... -DKERNEL=... -DMAX_REGS=N -DEXPECT=plain|spilled -P check-resources.cmake
#
# Reads the cubins embedded in BINARY (cuobjdump -res-usage) and checks KERNEL in each of them:
#   spilled  warpsmith's spilling ran: at most MAX_REGS registers, shared memory used (the spill
#            slots; the kernel declares none), no local memory (ptxas spilled nothing);
#   plain    the control: more than MAX_REGS registers and no shared memory, so the kernel really
#            needs the rewrite and the `spilled` checks cannot pass by accident.
foreach(v IN ITEMS CUOBJDUMP BINARY KERNEL MAX_REGS EXPECT)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "check-resources.cmake: -D${v}= is missing")
  endif()
endforeach()
execute_process(COMMAND "${CUOBJDUMP}" -res-usage "${BINARY}"
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${CUOBJDUMP} -res-usage ${BINARY} failed (${rc}): ${err}")
endif()
# cuobjdump prints ` Function NAME:` and the figures on the next line.
string(REGEX MATCHALL "Function ${KERNEL}:[ \t]*\n[^\n]*" lines "${out}")
if(NOT lines)
  message(FATAL_ERROR "no cubin of ${BINARY} has the kernel ${KERNEL}:\n${out}")
endif()
set(failed FALSE)
foreach(line IN LISTS lines)
  string(REGEX REPLACE "[ \t]*\n[ \t]*" " " line "${line}")
  foreach(field IN ITEMS REG SHARED LOCAL)
    if(NOT line MATCHES "[ \t]${field}:([0-9]+)")
      message(FATAL_ERROR "no ${field} figure in `${line}`")
    endif()
    set(${field} ${CMAKE_MATCH_1})
  endforeach()
  if(EXPECT STREQUAL "spilled")
    if(REG GREATER MAX_REGS OR SHARED EQUAL 0 OR NOT LOCAL EQUAL 0)
      set(failed TRUE)
      message(SEND_ERROR "not spilled by warpsmith (want REG <= ${MAX_REGS}, SHARED > 0, LOCAL 0): ${line}")
    endif()
  elseif(EXPECT STREQUAL "plain")
    if(NOT REG GREATER MAX_REGS OR NOT SHARED EQUAL 0)
      set(failed TRUE)
      message(SEND_ERROR "the control kernel does not need more than ${MAX_REGS} registers: ${line}")
    endif()
  else()
    message(FATAL_ERROR "EXPECT must be plain or spilled, not `${EXPECT}`")
  endif()
  message(STATUS "${EXPECT}: ${line}")
endforeach()
