# cmake -DIN=file -DOUT=file.inc -P embed_text.cmake
# Writes IN as a C++ string literal (concatenated raw-string chunks) to OUT.
file(READ "${IN}" text)
set(out "// Generated from ${IN_NAME} by scripts/embed_text.cmake; do not edit.\n")
get_filename_component(name "${IN}" NAME)
set(out "// Generated from ${name} by scripts/embed_text.cmake; do not edit.\n")
string(LENGTH "${text}" len)
set(pos 0)
while(pos LESS len)
  string(SUBSTRING "${text}" ${pos} 8000 chunk)
  string(APPEND out "R\"NNEF_EMBED(${chunk})NNEF_EMBED\"\n")
  math(EXPR pos "${pos} + 8000")
endwhile()
file(WRITE "${OUT}" "${out}")
