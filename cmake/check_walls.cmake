# cmake -DONA_SOURCE_DIR=<repo> [-DONA_LAYERS=... -DONA_LAYER_<name>=... -DONA_NM=nm] -P cmake/check_walls.cmake
cmake_minimum_required(VERSION 3.21)
#
# The layers' walls that include paths alone cannot enforce. runtime/core is compiled without
# Lua's or SDL's include paths, so including either there fails the build already; but GL/ and
# EGL/ headers live in /usr/include, which every target sees. This check (the `walls` test) fails
# when runtime/core, runtime/physics or samples/ include any Lua, SDL, GL or EGL header, when
# runtime/gfx, runtime/audio or runtime/physics includes a Lua header, or when a host (bindings/, runtime/native/) includes a
# header of gfx, audio or the assembly.
set(pattern "#include [<\"](lua|lauxlib|lualib|luajit|SDL|GL/|EGL)")
set(gfx_pattern "#include [<\"](lua|lauxlib|lualib|luajit|l_[a-z_]+\\.h|lua_host\\.h)")
set(failures "")
function(scan dir regex)
  file(GLOB_RECURSE files "${ONA_SOURCE_DIR}/${dir}/*.c" "${ONA_SOURCE_DIR}/${dir}/*.h"
    "${ONA_SOURCE_DIR}/${dir}/*.cpp")
  foreach(f ${files})
    file(STRINGS "${f}" hits REGEX "${regex}")
    if(hits)
      file(RELATIVE_PATH rel "${ONA_SOURCE_DIR}" "${f}")
      string(APPEND failures "\n  ${rel}: ${hits}")
    endif()
  endforeach()
  set(failures "${failures}" PARENT_SCOPE)
endfunction()
scan(runtime/core "${pattern}")
scan(samples "${pattern}")
scan(runtime/gfx "${gfx_pattern}")
scan(runtime/audio "${gfx_pattern}")
# runtime/physics: Box2D and the core's allocator only; no Lua, SDL, GL or binding header.
scan(runtime/physics "${pattern}")
scan(runtime/physics "${gfx_pattern}")
# The hosts see the public headers, the core's, the services' and their own: every quoted
# include in bindings/ and runtime/native/ must name a header found in one of those folders.
function(scan_quoted dir)
  file(GLOB files "${ONA_SOURCE_DIR}/${dir}/*.c" "${ONA_SOURCE_DIR}/${dir}/*.h")
  foreach(f ${files})
    file(STRINGS "${f}" includes REGEX "^#include \"[^\"]+\"")
    foreach(line ${includes})
      string(REGEX REPLACE "^#include \"([^\"]+)\".*" "\\1" header "${line}")
      set(found FALSE)
      foreach(seen ${dir} runtime/include runtime/core runtime/services)
        if(EXISTS "${ONA_SOURCE_DIR}/${seen}/${header}")
          set(found TRUE)
        endif()
      endforeach()
      if(NOT found)
        file(RELATIVE_PATH rel "${ONA_SOURCE_DIR}" "${f}")
        string(APPEND failures "\n  ${rel}: ${line} (a host sees only ona/*.h, runtime/core, "
          "runtime/services and its own folder)")
      endif()
    endforeach()
  endforeach()
  set(failures "${failures}" PARENT_SCOPE)
endfunction()
if(EXISTS "${ONA_SOURCE_DIR}/runtime/services")
  scan_quoted(bindings)
  if(EXISTS "${ONA_SOURCE_DIR}/runtime/native")
    scan_quoted(runtime/native)
  endif()
endif()

if(failures)
  message(FATAL_ERROR "A layer's wall is crossed (runtime/core and samples include no Lua, SDL, "
    "GL or EGL header; runtime/gfx and runtime/audio no Lua or binding header; the hosts only "
    "the public, core and services headers and their own):${failures}")
endif()
message(STATUS "walls: runtime/core, runtime/gfx, the hosts and samples include only what their "
  "layer may")

# The same walls by symbol, when the build passes each layer's objects (the `walls` test does).
if(ONA_LAYERS)
  include(${CMAKE_CURRENT_LIST_DIR}/check_symbols.cmake)
endif()
