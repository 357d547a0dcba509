# ona_embed_file(<input> <output.c> <symbol>): writes a C file defining
#   const unsigned char <symbol>[]; const unsigned long <symbol>_size;
# with the input's bytes, regenerated when the input changes (configure dependency).
function(ona_embed_file input output symbol)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${input})
  file(READ ${input} hex HEX)
  string(LENGTH "${hex}" hex_length)
  math(EXPR size "${hex_length} / 2")
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
  string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n  " bytes "${bytes}")
  file(WRITE ${output}.tmp
    "/* Generated from ${input} by cmake/embed.cmake. Do not edit. */\n"
    "const unsigned char ${symbol}[] = {\n  ${bytes}0x00\n};\n"
    "const unsigned long ${symbol}_size = ${size};\n")
  file(COPY_FILE ${output}.tmp ${output} ONLY_IF_DIFFERENT)
endfunction()
