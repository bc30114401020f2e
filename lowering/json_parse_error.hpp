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

// The same for nlohmann's other exceptions while parsing (out_of_range 406: a number literal that
// overflows a double, e.g. 41e3867295): the place of the first occurrence of the literal it quotes,
// and its explanation without the "[json.exception...]" prefix.
inline JsonParseErrorPlace json_exception_place(const nlohmann::json::exception& e, std::string_view text) {
    if (const auto* pe = dynamic_cast<const nlohmann::json::parse_error*>(&e)) return json_parse_error_place(*pe, text);
    JsonParseErrorPlace p;
    const std::string what = e.what();
    const auto bracket = what.find("] ");
    p.detail = bracket == std::string::npos ? what : what.substr(bracket + 2);
    const auto open = what.find('\'');
    const auto close = open == std::string::npos ? open : what.find('\'', open + 1);
    const std::size_t at = close == std::string::npos ? std::string_view::npos : text.find(what.substr(open + 1, close - open - 1));
    for (std::size_t i = 0; at != std::string_view::npos && i < at; ++i) {
        if (text[i] == '\n') {
            ++p.line;
            p.column = 1;
        } else {
            ++p.column;
        }
    }
    return p;
}

}  // namespace nnef
