// The tensor file codec (spec 5.2, read as SPEC_NOTES section 4): reading with full validation of
// the 128-byte header, memory-mapped float32 data, and writing that reads back bit-exactly.
//
// Every refusal is a Diagnostic with stage `data`, the file's path (or the given name) and the byte
// offset of the offending field; a file that cannot be opened is stage `io`. A header never causes
// an allocation larger than the file it came from.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nnef/diagnostics.hpp>
#include <nnef/options.hpp>
#include <nnef/tensor_data.hpp>

namespace nnef::storage {

using TensorDataPtr = std::shared_ptr<const TensorData>;

struct ReadOptions {
    // float32 data of a regular file is memory-mapped and used in place (POSIX hosts,
    // little-endian) when it has at least `map_from` bytes. Otherwise, and for every other code,
    // the data is read once into memory.
    bool allow_mmap = true;
    // Below this, reading is cheaper than mapping: a mapping costs two system calls (mmap, and
    // munmap when the tensor is released) that change the process's address space, and a page
    // fault per page touched, more than copying 64 KiB from the page cache
    // (bench/python_load.py: squeezenet's 26 tensor files).
    std::size_t map_from = std::size_t(64) << 10;
    // For callers that will use all of the data: a mapping gets its page tables filled at once
    // (MAP_POPULATE) instead of taking one page fault per 4 KiB on first touch.
    bool populate = false;
};

// Reads and validates a tensor file. Limits: max_rank (at most 8 anyway) and max_volume.
Result<TensorDataPtr> read_tensor_file(const std::string& path, const Limits& limits = {},
                                       const ReadOptions& options = {});

// The same for a file already in memory (`name` is used in diagnostics). The bytes are copied.
Result<TensorDataPtr> read_tensor_bytes(const std::uint8_t* data, std::size_t size, const std::string& name,
                                        const Limits& limits = {});
// Zero copy: the tensor keeps `bytes` alive and points into it (e.g. an archive member's contents).
Result<TensorDataPtr> read_tensor_bytes(std::shared_ptr<const std::string> bytes, const std::string& name,
                                        const Limits& limits = {});
// Zero copy: the tensor's data is a view into `bytes` (e.g. an archive member, see
// storage/container.hpp) and keeps what `bytes` keeps alive; a mapped view stays mapped().
Result<TensorDataPtr> read_tensor_bytes(const ByteView& bytes, const std::string& name, const Limits& limits = {});

// Checks the fields of a decoded header (version, rank, extents, bits, item type, parameters,
// data length against the shape, limits) as read_tensor_* do before looking at the data; reports
// the first problem into `out` with `name` as path and the field's byte offset.
bool validate_tensor_header(const TensorHeader& header, const std::string& name, const Limits& limits,
                            Diagnostics& out);

// Decodes the fields of a 128-byte header (no validation beyond the layout).
TensorHeader decode_tensor_header(const std::uint8_t* bytes);
// The 128 header bytes of `header`.
std::array<std::uint8_t, TensorHeader::size> encode_tensor_header(const TensorHeader& header);

// The file image of a tensor: header then data. Refused (stage data) when the header is invalid or
// the data is not header.data_length bytes.
Result<std::vector<std::uint8_t>> encode_tensor(const TensorData& tensor);
// Writes encode_tensor(tensor) to `path` (replaced if it exists). The value is the bytes written.
Result<std::uint64_t> write_tensor_file(const std::string& path, const TensorData& tensor);

// ---- building tensors for writing ----------------------------------------------------------
// Each validates like a reader would and fails (stage data, no path) on an invalid combination or
// on values that do not fit the encoding.

// General form: the item-type word (vendor << 16 | algorithm), bits per item, the 8 parameter
// words, and one raw code per item (at most `bits` wide), packed as the file stores them.
Result<TensorDataPtr> make_tensor(const std::vector<std::int64_t>& shape, std::uint32_t item_type, unsigned bits,
                                  const std::array<std::uint32_t, 8>& params,
                                  const std::vector<std::uint64_t>& codes);

// Code 0x00, 32 bits.
Result<TensorDataPtr> make_float_tensor(const std::vector<std::int64_t>& shape, const std::vector<float>& values);
// Code 0x00 with 16 (rounded to nearest even), 32 (rounded) or 64 bits.
Result<TensorDataPtr> make_float_tensor(const std::vector<std::int64_t>& shape, const std::vector<double>& values,
                                        unsigned bits);
// Integer codes: 0x01 (signed flag = is_signed), 0x04 (signed), 0x02/0x03 (quantized codes,
// is_signed ignored: 0x03 is signed). Values must fit the width.
Result<TensorDataPtr> make_integer_tensor(const std::vector<std::int64_t>& shape,
                                          const std::vector<std::int64_t>& values, unsigned bits, bool is_signed,
                                          std::uint16_t code = item_code::integer);
// Code 0x05 with 1 or 8 bits.
Result<TensorDataPtr> make_logical_tensor(const std::vector<std::int64_t>& shape, const std::vector<bool>& values,
                                          unsigned bits = 1);
// Code 0x10: q = round(clamp((x - min) / (max - min), 0, 1) * (2^bits - 1)).
Result<TensorDataPtr> make_linear_quantized_tensor(const std::vector<std::int64_t>& shape,
                                                   const std::vector<double>& values, float min, float max,
                                                   unsigned bits);
// Code 0x11 (SPEC_NOTES section 1): q = round(clamp(log2|x|, m - r, m)) - (m - r), m = ceil(log2 max);
// signed: min = -max and the most significant bit carries the sign.
Result<TensorDataPtr> make_log_quantized_tensor(const std::vector<std::int64_t>& shape,
                                                const std::vector<double>& values, float max, bool is_signed,
                                                unsigned bits);

// Encoders of single values (exposed for tests and other writers).
std::uint16_t double_to_half(double x);
std::uint64_t linear_quantize_code(double x, double min, double max, unsigned bits);
std::uint64_t log_quantize_code(double x, double max, bool is_signed, unsigned bits);

}  // namespace nnef::storage
