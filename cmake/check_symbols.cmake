# Included by cmake/check_walls.cmake when the build passes the layers' objects.
cmake_minimum_required(VERSION 3.21)
#
# The walls by symbol: `nm` lists what each layer's objects define and what they reference, and a
# layer may reference only symbols defined in itself or in a layer below it (ona_layer_allowed
# below). An include scan cannot see a call through a declaration that lives in a lower layer's
# header but whose body lives above (the core once called into the bindings that way); this
# check does. Symbols defined by none of Ona's layers (libc, libuv, SDL, GL, LuaJIT, the
# sanitizers' runtimes) are outside the walls and not checked here: the include paths and the
# include scan keep those out of the layers that may not use them.
#
# Input: ONA_LAYERS, the layers' names joined by '|', and for each ONA_LAYER_<name>, its object files
# joined by '|'; ONA_NM, the nm program. Prints the table of how many distinct symbols each
# layer takes from each other layer, then fails on any reference that crosses a wall.

# What each layer may reference besides itself.
set(ona_layer_allowed_core "")
set(ona_layer_allowed_gfx "core")
set(ona_layer_allowed_audio "core")
set(ona_layer_allowed_physics "core")
set(ona_layer_allowed_services "core;gfx;audio")
set(ona_layer_allowed_bindings "core;services")
set(ona_layer_allowed_native "core;services")
set(ona_layer_allowed_top "core;gfx;audio;physics;services;bindings;native")
# The hosts see the public headers and the services header: of gfx, audio and physics they may
# use the public API (ona_*), never the internals (ona__*), which they reach through the services.
# The services and gfx never reach physics: a world is a host's object, not a runtime service.
set(ona_layer_public_bindings "gfx;audio;physics")
set(ona_layer_public_native "gfx;audio;physics")

# nm_lines(<out> <layer> <nm flags>...): nm's lines for the layer's objects, one list item each,
# every line prefixed with its object's path (-A).
function(nm_lines out layer)
  execute_process(COMMAND ${ONA_NM} -A ${ARGN} ${objects_${layer}}
    OUTPUT_VARIABLE text RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "walls: ${ONA_NM} failed on layer ${layer}: ${err}")
  endif()
  string(REPLACE "\n" ";" text "${text}")
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

string(REPLACE "|" ";" ONA_LAYERS "${ONA_LAYERS}")
foreach(layer ${ONA_LAYERS})
  string(REPLACE "|" ";" objects_${layer} "${ONA_LAYER_${layer}}")
  nm_lines(lines ${layer} -g --defined-only)
  foreach(line ${lines})
    # path:address type name
    if(line MATCHES "^([^:]+):[0-9a-fA-F]+ [A-Za-z] ([^ ]+)$")
      set(sym "${CMAKE_MATCH_2}")
      set(def_${sym} "${layer}")
      get_filename_component(file "${CMAKE_MATCH_1}" NAME)
      set(deffile_${sym} "${file}")
    endif()
  endforeach()
endforeach()

set(failures "")
set(table "")
foreach(layer ${ONA_LAYERS})
  nm_lines(lines ${layer} -u)
  foreach(other ${ONA_LAYERS})
    set(uses_${layer}_${other} "")
  endforeach()
  foreach(line ${lines})
    # path: <spaces> U name
    if(line MATCHES "^([^:]+): +U ([^ ]+)$")
      set(sym "${CMAKE_MATCH_2}")
      if(NOT DEFINED def_${sym})
        continue()
      endif()
      set(owner "${def_${sym}}")
      if(owner STREQUAL layer)
        continue()
      endif()
      list(APPEND uses_${layer}_${owner} "${sym}")
      set(crosses TRUE)
      if(owner IN_LIST ona_layer_allowed_${layer})
        set(crosses FALSE)
      elseif(owner IN_LIST ona_layer_public_${layer} AND NOT sym MATCHES "^ona__")
        set(crosses FALSE)
      endif()
      if(crosses)
        get_filename_component(file "${CMAKE_MATCH_1}" NAME)
        string(REGEX REPLACE "\\.o(bj)?$" "" file "${file}")
        string(APPEND failures
          "\n  ${layer} ${file} -> ${sym} (defined in ${owner} ${deffile_${sym}})")
      endif()
    endif()
  endforeach()
  set(row "")
  foreach(other ${ONA_LAYERS})
    if(NOT other STREQUAL layer)
      list(REMOVE_DUPLICATES uses_${layer}_${other})
      list(LENGTH uses_${layer}_${other} n)
      if(n GREATER 0)
        string(APPEND row " ${other} ${n},")
      endif()
    endif()
  endforeach()
  string(REGEX REPLACE ",$" "" row "${row}")
  if(row STREQUAL "")
    set(row " nothing")
  endif()
  string(APPEND table "\n  ${layer} uses:${row}")
endforeach()

message(STATUS "walls: distinct symbols each layer takes from the others:${table}")
if(failures)
  message(FATAL_ERROR "A layer references a symbol defined above or beside it (a layer may use "
    "only itself and the layers below it: core; gfx, audio, physics; services; bindings, native; top):"
    "${failures}")
endif()
message(STATUS "walls: every layer references only itself and the layers below it")
