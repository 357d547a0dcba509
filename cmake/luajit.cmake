# cmake/luajit.cmake: which LuaJIT Ona runs on. Defines the target `ona_luajit` (include path,
# compile definitions and, for the system library, the link) and, for the bundled build, the
# list ONA_LUAJIT_OBJECTS that goes into libona itself.
#
#   -DONA_LUAJIT=auto     (default) bundled when the source is there, else system with a warning
#   -DONA_LUAJIT=bundled  LuaJIT built here with LUAJIT_ENABLE_CHECKHOOK and a fixed PRNG seed;
#                         stops if the source is missing (run tools/deps.sh)
#   -DONA_LUAJIT=system   Debian's libluajit-5.1 (pkg-config luajit), built without CHECKHOOK and
#                         seeded from the OS: runs are not reproducible (pairs() order over
#                         string keys differs from run to run; see runtime/DESIGN.md)
#   -DONA_LUAJIT_SOURCE=<dir>  the LuaJIT tree to build (default: the one tools/deps.sh fetched,
#                         ${ONA_DEPS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ona}/luajit-<version>)
#
# Design note. The bundled LuaJIT is Debian's own source package (its patches applied), built
# with Debian's make invocation (`make amalg`, debian/rules; CFLAGS from dpkg-buildflags) plus
# XCFLAGS=-DLUAJIT_ENABLE_CHECKHOOK, so that compiled traces check the hook the turn budget sets
# (runtime/watchdog.c) and a JIT-compiled `while true do end` can be interrupted, and
# XCFLAGS=-DLUAJIT_SECURITY_PRNG=0, so that every state starts from one fixed PRNG seed instead of
# the OS's entropy: string IDs, hence the order of pairs() over string keys, then follow from the
# state's own history and a run replays (cmake/luajit-determinism.patch takes the one
# process-dependent use off that PRNG). The seed guarded against hash flooding by hostile input;
# Ona runs trusted scripts, and reproducible games matter more here. Only the static
# library is built (BUILDMODE=static), position-independent so it also fits a shared libona. The
# amalgamated build is two objects (ljamalg.o, lj_vm.o): they become part of libona, so an
# embedder of the installed package links nothing more for Lua (and cannot pick up the packaged
# libluajit by mistake). The tree is copied into the build directory and built there, never in
# the cache, so presets do not share objects. LuaJIT gets its own flags only: the sanitizer
# presets' -fsanitize options are CMake compile options, which a custom command never sees, so
# LuaJIT is not instrumented (as with the packaged library).

set(ONA_LUAJIT "auto" CACHE STRING "LuaJIT: auto, bundled (built with CHECKHOOK) or system")
set_property(CACHE ONA_LUAJIT PROPERTY STRINGS auto bundled system)
set(ONA_LUAJIT_SOURCE "" CACHE PATH "LuaJIT source tree to build (default: tools/deps.sh's cache)")
if(NOT ONA_LUAJIT MATCHES "^(auto|bundled|system)$")
  message(FATAL_ERROR "ONA_LUAJIT must be auto, bundled or system, not '${ONA_LUAJIT}'")
endif()

# The Debian version of the packaged LuaJIT: the source tools/deps.sh fetched is named after it.
execute_process(COMMAND dpkg-query -W -f=\${Version} libluajit-5.1-dev
  OUTPUT_VARIABLE ona_luajit_deb_version ERROR_QUIET RESULT_VARIABLE ona_dpkg_rc)
if(NOT ona_dpkg_rc EQUAL 0)
  set(ona_luajit_deb_version "")
endif()
string(REGEX REPLACE "^[0-9]+:" "" ona_luajit_deb_version "${ona_luajit_deb_version}")

set(ona_luajit_source "")
if(ONA_LUAJIT_SOURCE)
  set(ona_luajit_source "${ONA_LUAJIT_SOURCE}")
elseif(NOT ONA_LUAJIT STREQUAL "system")
  if(DEFINED ENV{ONA_DEPS_CACHE})
    set(ona_deps_cache "$ENV{ONA_DEPS_CACHE}")
  elseif(DEFINED ENV{XDG_CACHE_HOME} AND NOT "$ENV{XDG_CACHE_HOME}" STREQUAL "")
    set(ona_deps_cache "$ENV{XDG_CACHE_HOME}/ona")
  else()
    set(ona_deps_cache "$ENV{HOME}/.cache/ona")
  endif()
  if(ona_luajit_deb_version AND EXISTS "${ona_deps_cache}/luajit-${ona_luajit_deb_version}/src/luajit.h")
    set(ona_luajit_source "${ona_deps_cache}/luajit-${ona_luajit_deb_version}")
  else()
    # Another version (the package was upgraded since): the newest one fetched.
    file(GLOB ona_luajit_found LIST_DIRECTORIES true "${ona_deps_cache}/luajit-*/src/luajit.h")
    if(ona_luajit_found)
      list(SORT ona_luajit_found)
      list(GET ona_luajit_found -1 ona_luajit_header)
      get_filename_component(ona_luajit_source "${ona_luajit_header}" DIRECTORY)
      get_filename_component(ona_luajit_source "${ona_luajit_source}" DIRECTORY)
    endif()
  endif()
endif()

set(ona_luajit_mode "${ONA_LUAJIT}")
if(ona_luajit_mode STREQUAL "auto")
  if(ona_luajit_source)
    set(ona_luajit_mode bundled)
  else()
    set(ona_luajit_mode system)
    message(WARNING
      "The LuaJIT source is not in ${ona_deps_cache}: building against the system's "
      "libluajit-5.1, which lacks LUAJIT_ENABLE_CHECKHOOK, so a runaway JIT-compiled loop is "
      "reported but cannot be stopped. Run tools/deps.sh and configure again to build LuaJIT "
      "with CHECKHOOK (or pass -DONA_LUAJIT=system to silence this).")
  endif()
endif()
if(ona_luajit_mode STREQUAL "bundled" AND NOT EXISTS "${ona_luajit_source}/src/luajit.h")
  if(ona_luajit_source)
    set(ona_where "${ona_luajit_source}")
  else()
    set(ona_where "${ona_deps_cache}/luajit-${ona_luajit_deb_version}")
  endif()
  message(FATAL_ERROR
    "ONA_LUAJIT=bundled needs the LuaJIT source, which is not in ${ona_where}.\n"
    "Run tools/deps.sh (it fetches Debian's luajit source package into that cache), or point "
    "-DONA_LUAJIT_SOURCE at a LuaJIT 2.1 tree, or configure with -DONA_LUAJIT=system (a "
    "JIT-compiled runaway loop is then reported but cannot be stopped).")
endif()
set(ONA_LUAJIT_MODE "${ona_luajit_mode}")

add_library(ona_luajit INTERFACE)
set(ONA_LUAJIT_OBJECTS "")
if(ona_luajit_mode STREQUAL "system")
  ona_require(LUAJIT luajit libluajit-5.1-dev)
  target_link_libraries(ona_luajit INTERFACE PkgConfig::LUAJIT)
  set(ona_luajit_desc "system libluajit-5.1 ${LUAJIT_VERSION}")
  target_compile_definitions(ona_luajit INTERFACE ONA_LUAJIT_CHECKHOOK=0 ONA_LUAJIT_FIXED_SEED=0
    ONA_LUAJIT_DESC="${ona_luajit_desc}")
  message(STATUS "LuaJIT: ${ona_luajit_desc}, without CHECKHOOK, seeded from the OS (runs are "
    "not reproducible: pairs() order over string keys changes from run to run)")
  return()
endif()

# --- The bundled build ---------------------------------------------------------------------------
find_program(ONA_MAKE NAMES gmake make REQUIRED)
find_program(ONA_PATCH patch REQUIRED)
# Debian 12's snapshot needs one fix for CHECKHOOK (pairs() loops forever when compiled): see the
# patch's header.
set(ona_lj_patch "${CMAKE_CURRENT_SOURCE_DIR}/cmake/luajit-checkhook-itern.patch")
# Reproducible runs: machine-code probes off the state's PRNG, and the finalizer check ona.send
# uses (see the patch's header).
set(ona_lj_patch_det "${CMAKE_CURRENT_SOURCE_DIR}/cmake/luajit-determinism.patch")
set(ona_lj_dir "${CMAKE_CURRENT_BINARY_DIR}/luajit")
# Debian's CFLAGS (dh exports dpkg-buildflags' to LuaJIT's make), less the prefix map that names
# the directory dpkg-buildflags ran in; -fPIC so the objects also go into a shared libona.
set(ona_lj_cflags "-g -O2")
find_program(ONA_DPKG_BUILDFLAGS dpkg-buildflags)
if(ONA_DPKG_BUILDFLAGS)
  execute_process(COMMAND ${ONA_DPKG_BUILDFLAGS} --get CFLAGS OUTPUT_VARIABLE ona_lj_cflags
    OUTPUT_STRIP_TRAILING_WHITESPACE)
  string(REGEX REPLACE "-f(file|debug)-prefix-map=[^ ]*" "" ona_lj_cflags "${ona_lj_cflags}")
endif()
string(APPEND ona_lj_cflags " -fPIC")
string(REGEX REPLACE "  +" " " ona_lj_cflags "${ona_lj_cflags}")
set(ona_lj_objects "${ona_lj_dir}/src/ljamalg.o" "${ona_lj_dir}/src/lj_vm.o")
file(GLOB_RECURSE ona_lj_inputs "${ona_luajit_source}/src/*.c" "${ona_luajit_source}/src/*.h"
  "${ona_luajit_source}/src/*.dasc" "${ona_luajit_source}/src/Makefile")
add_custom_command(
  OUTPUT ${ona_lj_objects} "${ona_lj_dir}/src/libluajit.a" "${ona_lj_dir}/src/luajit.h"
  COMMAND ${CMAKE_COMMAND} -E rm -rf "${ona_lj_dir}"
  COMMAND ${CMAKE_COMMAND} -E copy_directory "${ona_luajit_source}" "${ona_lj_dir}"
  COMMAND ${ONA_PATCH} -p1 -s -d "${ona_lj_dir}" -i "${ona_lj_patch}"
  COMMAND ${ONA_PATCH} -p1 -s -d "${ona_lj_dir}" -i "${ona_lj_patch_det}"
  # Debian's: make amalg PREFIX=/usr MULTILIB=... CROSS=... Q= E=@: (debian/rules), built
  # native; plus CHECKHOOK and the static library only.
  COMMAND ${ONA_MAKE} -C "${ona_lj_dir}" -j2 amalg PREFIX=/usr BUILDMODE=static
    "CC=${CMAKE_C_COMPILER}" "CFLAGS=${ona_lj_cflags}" "LDFLAGS=" "XCFLAGS=-DLUAJIT_ENABLE_CHECKHOOK -DLUAJIT_SECURITY_PRNG=0"
    "Q=" "E=@:"
  DEPENDS ${ona_lj_inputs} "${ona_lj_patch}" "${ona_lj_patch_det}"
  COMMENT "Building LuaJIT with LUAJIT_ENABLE_CHECKHOOK and a fixed seed (${ona_luajit_source})"
  VERBATIM)
add_custom_target(ona_luajit_build DEPENDS ${ona_lj_objects})
add_dependencies(ona_luajit ona_luajit_build)
set_source_files_properties(${ona_lj_objects} PROPERTIES EXTERNAL_OBJECT TRUE GENERATED TRUE)
set(ONA_LUAJIT_OBJECTS ${ona_lj_objects})
# The copied tree's headers (it exists once the command ran; configure may come first).
file(MAKE_DIRECTORY "${ona_lj_dir}/src")
target_include_directories(ona_luajit INTERFACE $<BUILD_INTERFACE:${ona_lj_dir}/src>)
target_link_libraries(ona_luajit INTERFACE m ${CMAKE_DL_LIBS})
get_filename_component(ona_lj_name "${ona_luajit_source}" NAME)
set(ona_luajit_desc "bundled ${ona_lj_name}, LUAJIT_ENABLE_CHECKHOOK, fixed seed")
target_compile_definitions(ona_luajit INTERFACE ONA_LUAJIT_CHECKHOOK=1 ONA_LUAJIT_FIXED_SEED=1
  ONA_LUAJIT_DESC="${ona_luajit_desc}")
message(STATUS "LuaJIT: built here from ${ona_luajit_source} with LUAJIT_ENABLE_CHECKHOOK and "
  "LUAJIT_SECURITY_PRNG=0")
