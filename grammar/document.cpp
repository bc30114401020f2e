// The single instantiation of the X3 grammar (STYLE.md 1): every rule is defined in the
// *_def.hpp headers included here, for the one iterator and context type of config.hpp.
#include "grammar/document_def.hpp"

namespace nnef::grammar {

namespace rules {
BOOST_SPIRIT_INSTANTIATE(document_type, iterator_type, context_type)
}  // namespace rules

rules::document_type const& document_rule() { return rules::document; }

}  // namespace nnef::grammar
