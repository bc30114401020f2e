// The quantization-file rule (spec 5.3), declared for the grammar's one instantiation unit
// (grammar/document.cpp). Private to grammar/*.cpp: the public entry is grammar/parse.hpp.
#pragma once
#include <boost/spirit/home/x3.hpp>

#include "grammar/config.hpp"

namespace nnef::grammar {
namespace x3 = boost::spirit::x3;

namespace rules {
// The entries are collected through the ParseState in the context (ParseState::quant), so the
// rule itself has no attribute.
using quant_document_type = x3::rule<class quant_document_class>;
BOOST_SPIRIT_DECLARE(quant_document_type)
}  // namespace rules

// The quantization-file rule object (defined in quant_def.hpp, instantiated in document.cpp).
rules::quant_document_type const& quant_document_rule();

}  // namespace nnef::grammar
