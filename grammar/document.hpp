// Declaration of the document rule (the grammar's single entry point). Private to grammar/*.cpp:
// the public entry is grammar/parse.hpp.
#pragma once
#include <boost/spirit/home/x3.hpp>

#include "grammar/config.hpp"

namespace nnef::grammar {
namespace x3 = boost::spirit::x3;

namespace rules {
// The document is built through the ParseState in the context (ParseState::doc), so the rule
// itself has no attribute.
using document_type = x3::rule<class document_class>;
BOOST_SPIRIT_DECLARE(document_type)
}  // namespace rules

// The document rule object (defined in document_def.hpp, instantiated in document.cpp).
rules::document_type const& document_rule();

}  // namespace nnef::grammar
