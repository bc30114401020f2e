// The one iterator type and the one context type the grammar is instantiated for. Private to
// grammar/*.cpp.
#pragma once
#include <boost/spirit/home/x3.hpp>

#include "grammar/parse_state.hpp"
#include "grammar/tokens.hpp"

namespace nnef::grammar {
namespace x3 = boost::spirit::x3;

using iterator_type = const char*;
using phrase_context_type = x3::context<x3::skipper_tag, skipper_type const>;
// The parse state (positions, limits, the document being built) rides in the context.
using context_type = x3::context<state_tag, ParseState, phrase_context_type>;

}  // namespace nnef::grammar
