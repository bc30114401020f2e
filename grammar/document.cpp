// The single instantiation of the X3 grammar (STYLE.md 1): every rule is defined in the
// *_def.hpp headers included here, for the one iterator and context type of config.hpp.
#include "grammar/document_def.hpp"
#include "grammar/quant_def.hpp"

namespace nnef::grammar {

namespace rules {
BOOST_SPIRIT_INSTANTIATE(document_type, iterator_type, context_type)
BOOST_SPIRIT_INSTANTIATE(quant_document_type, iterator_type, context_type)
}  // namespace rules

rules::document_type const& document_rule() { return rules::document; }
rules::quant_document_type const& quant_document_rule() { return rules::quant_document; }

}  // namespace nnef::grammar
