# cmake -DONA_SOURCE_DIR=<repo> [-DONA_LAYERS=... -DONA_LAYER_<name>=... -DONA_NM=nm] -P cmake/check_walls.cmake
cmake_minimum_required(VERSION 3.21)
#
# The layers' walls that include paths alone cannot enforce. runtime/core is compiled without
# Lua's or SDL's include paths, so including either there fails the build already; but GL/ and
# EGL/ headers live in /usr/include, which every target sees. This check (the `walls` test) fails
# when runtime/core or samples/ include any Lua, SDL, GL or EGL header, or when runtime/gfx
# includes a Lua header.
set(pattern "#include [<\"](lua|lauxlib|lualib|luajit|SDL|GL/|EGL)")
set(gfx_pattern "#include [<\"](lua|lauxlib|lualib|luajit|l_[a-z_]+\\.h|lua_host\\.h)")
set(failures "")
function(scan dir regex)
  file(GLOB_RECURSE files "${ONA_SOURCE_DIR}/${dir}/*.c" "${ONA_SOURCE_DIR}/${dir}/*.h")
  foreach(f ${files})
    file(STRINGS "${f}" hits REGEX "${regex}")
    if(hits)
      file(RELATIVE_PATH rel "${ONA_SOURCE_DIR}" "${f}")
      set(failures "${failures}\n  ${rel}: ${hits}" PARENT_SCOPE)
    endif()
  endforeach()
endfunction()
scan(runtime/core "${pattern}")
scan(samples "${pattern}")
scan(runtime/gfx "${gfx_pattern}")
scan(runtime/audio "${gfx_pattern}")
if(failures)
  message(FATAL_ERROR "A layer's wall is crossed (runtime/core and samples include no Lua, SDL, "
    "GL or EGL header; runtime/gfx no Lua or binding header):${failures}")
endif()
message(STATUS "walls: runtime/core, runtime/gfx and samples include only what their layer may")

# The same walls by symbol, when the build passes each layer's objects (the `walls` test does).
if(ONA_LAYERS)
  include(${CMAKE_CURRENT_LIST_DIR}/check_symbols.cmake)
endif()
