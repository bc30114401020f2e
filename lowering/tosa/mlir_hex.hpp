// What the MLIR writer (mlir.cpp) takes from mlir_hex.cpp: the hexadecimal form of constants'
// items. Internal to lowering/tosa.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "lowering/tosa/ir.hpp"

namespace nnef::tosa::tosa_mlir_cpp {

// Bytes of one item in MLIR's dense hexadecimal form (0: written as a literal list instead).
std::size_t hex_item_bytes(DType t);
// Appends one item's `bytes` little-endian bytes as hexadecimal digits.
void append_hex_item(std::string& out, std::uint64_t bits, std::size_t bytes);
// Two hexadecimal digits per byte of p[0..n) into d (the fastest encoder the host has).
void encode_hex_fast(char* d, const unsigned char* p, std::size_t n);
// Whether the hexadecimal form of c's items, `bytes` each, is that of its bytes as stored.
bool hex_of_storage(const ConstData& c, std::size_t bytes);
// Appends the hexadecimal form of n items of c from item 0, each as `bytes` little-endian bytes.
void append_hex_items(std::string& out, const ConstData& c, std::size_t n, std::size_t bytes);
bool all_items_equal(const ConstData& c);
// Nested literal list of a bool constant: [[true, false], [false, true]].
void append_bool_list(std::string& out, const ConstData& c, std::size_t dim, std::size_t& index);

}  // namespace nnef::tosa::tosa_mlir_cpp
