// The rules of the HAL 1.0 lookup and recurrent operations: EMBEDDING_LOOKUP, HASHTABLE_LOOKUP,
// LSH_PROJECTION, LSTM, RNN, SVDF (op_rules.hpp has the others).
#include "lowering/nnapi/op_check.hpp"

namespace nnef::nnapi::detail::check {

namespace {

constexpr OperandType F32 = OperandType::TENSOR_FLOAT32;
constexpr OperandType Q8 = OperandType::TENSOR_QUANT8_ASYMM;
constexpr OperandType I32T = OperandType::TENSOR_INT32;

void embedding_lookup(Check& c) {
    if (!c.counts({2}, 1)) return;
    c.in_type(0, {I32T});
    c.rank(0, 1);
    // The HAL lists TENSOR_FLOAT32 as the value type, and its output text speaks of a
    // TENSOR_QUANT8_ASYMM value tensor: both are accepted.
    if (!c.in_type(1, {F32, Q8})) return;
    c.out_same_type(0, c.in(1).type);
    if (c.in_dims(1).size() < 2) c.fail(Check::in_pos(1), "rank", "has rank " + std::to_string(c.in_dims(1).size()) + "; Values need rank 2 or more");
    c.same_quantization(0, 1);
    if (!c.ok()) return;
    Dims out = c.in_dims(1);
    out[0] = c.in_dims(0)[0];
    c.set_output(0, out);
}

void hashtable_lookup(Check& c) {
    if (!c.counts({3}, 2)) return;
    c.in_type(0, {I32T});
    c.rank(0, 1);
    c.in_type(1, {I32T});
    c.rank(1, 1);
    if (!c.in_type(2, {F32, I32T, Q8})) return;
    if (c.in_dims(2).size() < 2) c.fail(Check::in_pos(2), "rank", "has rank " + std::to_string(c.in_dims(2).size()) + "; Values need rank 2 or more");
    c.out_same_type(0, c.in(2).type);
    c.same_quantization(0, 2);
    c.out_type(1, {Q8});
    if (c.out(1).type == Q8 && (c.out(1).scale != 1.0f || c.out(1).zeroPoint != 0))
        c.fail(Check::out_pos(1), "output-quantization", "Hits must have scale 1.0 and zeroPoint 0");
    if (auto key_values = c.int_tensor_value(1); key_values && !std::is_sorted(key_values->begin(), key_values->end()))
        c.fail(Check::in_pos(1), "hashtable-keys", "Keys must be sorted in ascending order");
    if (!c.ok()) return;
    const Dims& keys = c.in_dims(1);
    const Dims& values = c.in_dims(2);
    if (keys[0] != 0 && values[0] != 0 && keys[0] != values[0])
        c.fail(Check::in_pos(2), "lookup-shape",
               "has first dimension " + std::to_string(values[0]) + "; it must be the number of Keys, " + std::to_string(keys[0]));
    Dims out = values;
    out[0] = c.in_dims(0)[0];
    c.set_output(0, out);
    c.set_output(1, {c.in_dims(0)[0]});
}

void lsh_projection(Check& c) {
    if (!c.counts({4}, 1)) return;
    c.optional_input(2);
    c.in_type(0, {F32});
    c.rank(0, 2);
    c.in_type(1, {F32, I32T, Q8});
    if (c.in_dims(1).empty()) c.fail(Check::in_pos(1), "rank", "has rank 0; Input needs rank 1 or more");
    if (!c.absent(2)) {
        c.in_type(2, {F32});
        c.rank(2, 1);
        if (c.ok() && c.in_dims(2)[0] != 0 && c.in_dims(1)[0] != 0 && c.in_dims(2)[0] != c.in_dims(1)[0])
            c.fail(Check::in_pos(2), "lsh-weight", "has " + std::to_string(c.in_dims(2)[0]) + " weights; Input has " +
                                                      std::to_string(c.in_dims(1)[0]) + " entries in its first dimension");
    }
    auto type = c.int_scalar(3, "projection type");
    if (type && *type != 1 && *type != 2)
        c.fail(Check::in_pos(3), "lsh-type", "the projection type is " + std::to_string(*type) + "; it must be 1 (SPARSE) or 2 (DENSE)");
    c.out_type(0, {I32T});
    if (!c.ok() || !type) return;
    const Dims& hash = c.in_dims(0);
    if (!fully_known(hash)) return;
    if (*type == 1) {
        if (double(hash[1]) + std::ceil(std::log2(double(hash[0]))) > 32)
            c.fail(Check::in_pos(0), "lsh-bits", "a sparse projection needs Dim[1] + ceil(log2(Dim[0])) <= 32; it is " +
                                                     std::to_string(hash[1]) + " + ceil(log2(" + std::to_string(hash[0]) + "))");
        c.set_output(0, {hash[0]});
    } else {
        c.set_output(0, {hash[0] * hash[1]});
    }
}

// The group is all present or all absent.
void all_or_none(Check& c, std::initializer_list<std::size_t> group, const char* rule, const char* what) {
    std::size_t present = 0;
    for (std::size_t k : group) present += c.absent(k) ? 0 : 1;
    if (present != 0 && present != group.size()) {
        std::string list;
        for (std::size_t k : group) list += (list.empty() ? "" : ", ") + std::to_string(k);
        c.fail("", rule, std::string("inputs ") + list + " (" + what + ") must all have values or all have none");
    }
}

void lstm(Check& c) {
    if (!c.counts({23}, 4)) return;
    for (std::size_t k : {1, 5, 9, 10, 11, 12, 16, 17}) c.optional_input(k);
    for (std::size_t k = 0; k < 20; ++k)
        if (!c.absent(k)) c.in_type(k, {F32});
    for (std::size_t k = 0; k < 4; ++k) c.out_type(k, {F32});
    all_or_none(c, {9, 10, 11}, "lstm-peephole", "the cell-to-gate weights");
    all_or_none(c, {1, 5, 12}, "lstm-cifg", "the input gate weights and bias");
    auto activation = c.int_scalar(20, "activation");
    if (activation && *activation != 0 && *activation != 1 && *activation != 3 && *activation != 4 && *activation != 6)
        c.fail(Check::in_pos(20), "lstm-activation",
               "the activation is " + std::to_string(*activation) + "; it must be 0, 1, 3, 4 or 6");
    c.float_scalar(21, "cell clip");
    c.float_scalar(22, "projection clip");
    if (!c.ok()) return;
    for (std::size_t k : {0, 2, 3, 4, 6, 7, 8, 18, 19}) c.rank(k, 2);
    for (std::size_t k : {13, 14, 15}) c.rank(k, 1);
    if (!c.ok()) return;
    bool cifg = c.absent(1);
    std::uint32_t batch = c.in_dims(0)[0];
    std::uint32_t units = c.in_dims(2)[0];
    std::uint32_t output_size = c.in_dims(18)[1];
    c.set_output(0, {batch, units == 0 ? 0 : units * (cifg ? 3 : 4)});
    c.set_output(1, {batch, output_size});
    c.set_output(2, {batch, units});
    c.set_output(3, {batch, output_size});
}

void rnn(Check& c) {
    if (!c.counts({6}, 2)) return;
    for (std::size_t k = 0; k < 5; ++k) c.in_type(k, {F32});
    c.activation(5);
    c.out_type(0, {F32});
    c.out_type(1, {F32});
    if (!c.ok()) return;
    for (std::size_t k : {0, 1, 2, 4}) c.rank(k, 2);
    c.rank(3, 1);
    if (!c.ok()) return;
    std::uint32_t batch = c.in_dims(0)[0];
    std::uint32_t units = c.in_dims(1)[0];
    const Dims& in = c.in_dims(0);
    const Dims& w = c.in_dims(1);
    if (in[1] != 0 && w[1] != 0 && in[1] != w[1])
        c.fail(Check::in_pos(1), "rnn-shape", "is " + dims_text(w) + "; its second dimension must be input_size " + std::to_string(in[1]));
    c.set_output(0, {batch, units});
    c.set_output(1, {batch, units});
}

void svdf(Check& c) {
    if (!c.counts({7}, 2)) return;
    c.optional_input(3);
    for (std::size_t k = 0; k < 5; ++k)
        if (!c.absent(k)) c.in_type(k, {F32});
    c.at_least(5, c.int_scalar(5, "rank"), 1, "svdf-rank", "rank");
    c.activation(6);
    c.out_type(0, {F32});
    c.out_type(1, {F32});
    if (!c.ok()) return;
    for (std::size_t k : {0, 1, 2, 4}) c.rank(k, 2);
    if (!c.absent(3)) c.rank(3, 1);
    if (!c.ok()) return;
    c.set_output(0, c.in_dims(4));
    c.set_output(1, {c.in_dims(0)[0], c.in_dims(1)[0]});
}

}  // namespace

void sequence_operation(Check& c) {
    switch (c.op().type) {
        case OperationType::EMBEDDING_LOOKUP: embedding_lookup(c); break;
        case OperationType::HASHTABLE_LOOKUP: hashtable_lookup(c); break;
        case OperationType::LSH_PROJECTION: lsh_projection(c); break;
        case OperationType::LSTM: lstm(c); break;
        case OperationType::RNN: rnn(c); break;
        case OperationType::SVDF: svdf(c); break;
        default: break;
    }
}

}  // namespace nnef::nnapi::detail::check
