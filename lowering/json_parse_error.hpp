// Where nlohmann::json stopped in a text it could not parse: the 1-based line and column of that
// byte, and nlohmann's explanation without its "[json.exception...] parse error at ..." prefix.
// Shared by the JSON readers of lowering/ (VPU files, NNAPI models).
#pragma once
#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace nnef {

struct JsonParseErrorPlace {
    std::size_t line = 1;
    std::size_t column = 1;
    std::string detail;  // e.g. "syntax error while parsing value - unexpected ','; expected ..."
};

inline JsonParseErrorPlace json_parse_error_place(const nlohmann::json::parse_error& e, std::string_view text) {
    JsonParseErrorPlace p;
    const std::size_t end = std::min<std::size_t>(e.byte == 0 ? 0 : e.byte - 1, text.size());
    for (std::size_t i = 0; i < end; ++i) {
        if (text[i] == '\n') {
            ++p.line;
            p.column = 1;
        } else {
            ++p.column;
        }
    }
    const std::string what = e.what();
    // nlohmann's text: "[json.exception.parse_error.101] parse error at line 1, column 2: ..."
    const auto colon = what.find(": ", what.find("parse error"));
    p.detail = colon == std::string::npos ? what : what.substr(colon + 2);
    return p;
}

}  // namespace nnef
